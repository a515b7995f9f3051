import { CAR_MARKER_SIZE, type MarkerKind } from './types';

const PIN_COLOURS: Record<Exclude<MarkerKind, 'car' | 'car-busy' | 'me'>, string> = {
  pickup: '#1f8a4c',
  drop: '#c7362b',
  end: '#7b1fa2',
};

/** A pin for pickup and drop, a car (35 × 25) for the driver (grey while busy). */
export function MarkerGraphic({ kind, heading = 0, lost = false }: { kind: MarkerKind; heading?: number; lost?: boolean }) {
  if (kind === 'car' || kind === 'car-busy' || kind === 'me') {
    const body = lost ? '#c5cacd' : kind === 'me' ? '#0b5c56' : kind === 'car-busy' ? '#9aa3a8' : '#f2a93b';
    return (
      <svg
        width={CAR_MARKER_SIZE.width}
        height={CAR_MARKER_SIZE.height}
        viewBox="0 0 35 25"
        style={{ transform: `rotate(${heading - 90}deg)`, transition: 'transform 400ms linear', display: 'block', opacity: lost ? 0.45 : 1 }}
        aria-hidden="true"
      >
        <rect x="2" y="4" width="31" height="17" rx="6" fill={body} stroke="#1d1d1d" strokeWidth="1.5" />
        <rect x="20" y="7" width="8" height="11" rx="2" fill="#dff3f1" />
        <rect x="6" y="7" width="6" height="11" rx="2" fill="#dff3f1" opacity="0.8" />
        <circle cx="31" cy="7" r="1.5" fill="#fff8c4" />
        <circle cx="31" cy="18" r="1.5" fill="#fff8c4" />
      </svg>
    );
  }
  return (
    <svg width="28" height="38" viewBox="0 0 28 38" aria-hidden="true" style={{ display: 'block' }}>
      <path d="M14 37C14 37 26 22.5 26 13.5A12 12 0 0 0 2 13.5C2 22.5 14 37 14 37Z" fill={PIN_COLOURS[kind]} stroke="#fff" strokeWidth="2" />
      <circle cx="14" cy="13.5" r="4.5" fill="#fff" />
    </svg>
  );
}
