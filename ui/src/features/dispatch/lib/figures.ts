// The live figures strip: which figures, in what order, how each is worded,
// and the series its sparkline draws from the last hour.
import { durationText, rateText, type Worded } from '@/lib/durations';
import type { Figures } from './types';

export type FigureKey = Exclude<keyof Figures, 'at'>;
export type FigureKind = 'count' | 'duration' | 'rate';

export interface FigureSpec {
  key: FigureKey;
  kind: FigureKind;
  /** When a value counts as bad: the tile is drawn in the warning colour. */
  bad?: (value: number) => boolean;
}

export const FIGURES: FigureSpec[] = [
  { key: 'online', kind: 'count' },
  { key: 'available', kind: 'count' },
  { key: 'open', kind: 'count' },
  { key: 'waiting_over_2_min', kind: 'count', bad: (value) => value > 0 },
  { key: 'waiting_over_5_min', kind: 'count', bad: (value) => value > 0 },
  { key: 'dispatch_latency_p50', kind: 'duration' },
  { key: 'dispatch_latency_p99', kind: 'duration' },
  { key: 'acceptance_rate', kind: 'rate' },
  { key: 'time_to_accept_median', kind: 'duration' },
  { key: 'fulfilment', kind: 'rate', bad: (value) => value < 0.8 },
];

/** A figure's text; "—" (`dispatch.figure.none`) when there was nothing to measure. */
export function figureText(kind: FigureKind, value: number | null | undefined): Worded {
  if (value === null || value === undefined || !Number.isFinite(value)) return { key: 'dispatch.figure.none' };
  if (kind === 'duration') return durationText(value);
  if (kind === 'rate') return rateText(value);
  return { key: 'dispatch.unit.count', values: { value: Math.round(value) } };
}

/** One figure over the history, oldest first, for its sparkline. */
export function figureSeries(history: readonly Figures[], key: FigureKey): (number | null)[] {
  return history.map((sample) => {
    const value = sample[key];
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  });
}
