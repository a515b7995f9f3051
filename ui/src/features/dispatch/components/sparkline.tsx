import { sparklinePath } from '../lib/sparkline';

/** A small line of the last hour, oldest on the left (mirrored right to left with the page). */
export function Sparkline({ values, width = 96, height = 24, colour = 'currentColor' }: { values: (number | null)[]; width?: number; height?: number; colour?: string }) {
  const path = sparklinePath(values, width, height, 2);
  return (
    <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} aria-hidden="true" data-testid="sparkline" style={{ display: 'block' }}>
      {path && <path d={path} fill="none" stroke={colour} strokeWidth={1.5} strokeLinejoin="round" strokeLinecap="round" />}
    </svg>
  );
}
