import { describe, expect, it } from 'vitest';
import { i18n } from '@/i18n';
import { FIGURES, figureSeries, figureText } from '../lib/figures';
import { sparklinePath } from '../lib/sparkline';
import type { Figures } from '../lib/types';

const sample = (overrides: Partial<Figures> = {}): Figures => ({
  at: 0,
  online: 40,
  available: 25,
  open: 4,
  waiting_over_2_min: 2,
  waiting_over_5_min: 1,
  dispatch_latency_p50: 200,
  dispatch_latency_p99: 900,
  acceptance_rate: 0.25,
  time_to_accept_median: 8000,
  fulfilment: 0.6,
  ...overrides,
});

const words = (kind: Parameters<typeof figureText>[0], value: number | null) => {
  const text = figureText(kind, value);
  return i18n.t(text.key, { ...text.values, lng: 'en' });
};

describe('the live figures', () => {
  it('are the ten of issue #15, in order', () => {
    expect(FIGURES.map((figure) => figure.key)).toEqual([
      'online',
      'available',
      'open',
      'waiting_over_2_min',
      'waiting_over_5_min',
      'dispatch_latency_p50',
      'dispatch_latency_p99',
      'acceptance_rate',
      'time_to_accept_median',
      'fulfilment',
    ]);
  });

  it('write counts, durations and rates, and a dash rather than zero when nothing was measured', () => {
    expect(words('count', 40)).toBe('40');
    expect(words('duration', 200)).toBe('200 ms');
    expect(words('duration', 8000)).toBe('8.0 s');
    expect(words('rate', 0.6)).toBe('60%');
    expect(words('rate', null)).toBe('—');
    expect(words('duration', null)).toBe('—');
  });

  it('mark waiting riders and low fulfilment as bad', () => {
    const bad = (key: string, value: number) => FIGURES.find((figure) => figure.key === key)!.bad?.(value) ?? false;
    expect(bad('waiting_over_5_min', 1)).toBe(true);
    expect(bad('waiting_over_5_min', 0)).toBe(false);
    expect(bad('fulfilment', 0.6)).toBe(true);
    expect(bad('online', 0)).toBe(false);
  });

  it('take each sparkline from the history, oldest first, with gaps where nothing was measured', () => {
    const history = [sample({ acceptance_rate: null }), sample({ acceptance_rate: 0.5 }), sample({ online: 42 })];
    expect(figureSeries(history, 'acceptance_rate')).toEqual([null, 0.5, 0.25]);
    expect(figureSeries(history, 'online')).toEqual([40, 40, 42]);
  });
});

describe('a sparkline', () => {
  it('spans the width, lowest value at the bottom and highest at the top', () => {
    expect(sparklinePath([0, 5, 10], 100, 20, 0)).toBe('M0 20L50 10L100 0');
  });

  it('breaks the line at a gap and sits in the middle when flat', () => {
    expect(sparklinePath([1, null, 3, 5], 30, 10, 0)).toBe('M0 10M20 5L30 0');
    expect(sparklinePath([7, 7], 10, 10, 0)).toBe('M0 5L10 5');
    expect(sparklinePath([4], 10, 10, 0)).toBe('M5 5');
  });

  it('is empty with nothing to draw', () => {
    expect(sparklinePath([], 10, 10)).toBe('');
    expect(sparklinePath([null, null], 10, 10)).toBe('');
  });
});
