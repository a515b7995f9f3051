// Durations and rates as the console writes them: a translation key and its
// values, so every language words them its own way.

export interface Worded {
  key: string;
  values?: Record<string, string | number>;
}

/** Milliseconds: "850 ms" under a second, "12.3 s" under ten, "45 s" under a
 * minute, then "3 min 05 s", then "1 h 02 min". */
export function durationText(ms: number): Worded {
  const value = Math.max(0, ms);
  if (value < 1000) return { key: 'dispatch.unit.ms', values: { value: Math.round(value) } };
  if (value < 10_000) return { key: 'dispatch.unit.s', values: { value: (Math.floor(value / 100) / 10).toFixed(1) } };
  const seconds = Math.round(value / 1000);
  if (seconds < 60) return { key: 'dispatch.unit.s', values: { value: seconds } };
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return { key: 'dispatch.unit.min_s', values: { minutes, seconds: String(seconds % 60).padStart(2, '0') } };
  return { key: 'dispatch.unit.h_min', values: { hours: Math.floor(minutes / 60), minutes: String(minutes % 60).padStart(2, '0') } };
}

/** 0 to 1 as a whole percentage. */
export function rateText(rate: number): Worded {
  return { key: 'dispatch.unit.percent', values: { value: Math.round(Math.min(1, Math.max(0, rate)) * 100) } };
}
