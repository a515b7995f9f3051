import { describe, expect, it } from 'vitest';
import { chatDate, chatTime, distanceIn, formatElapsed, formatMoney, formatTimeOfDay, isolateLtr } from '@/lib/format';
import { decodePolyline, pointAlong } from '@/lib/polyline';

describe('formats', () => {
  it('writes chat dates as MM:DD:YYYY and times as HH:MM, zero-padded', () => {
    const at = new Date(2026, 2, 5, 7, 4).getTime();
    expect(chatDate(at)).toBe('03:05:2026');
    expect(chatTime(at)).toBe('07:04');
  });

  it('runs a waiting clock as m:ss, and h:mm:ss past an hour', () => {
    expect(formatElapsed(0)).toBe('0:00');
    expect(formatElapsed(83_900)).toBe('1:23');
    expect(formatElapsed(10 * 60_000 + 5_000)).toBe('10:05');
    expect(formatElapsed(3_600_000 + 62_000)).toBe('1:01:02');
    expect(formatElapsed(-5_000)).toBe('0:00');
  });

  it("says a moment's time of day when it is today, and its date when not", () => {
    const now = new Date(2026, 10, 21, 14, 0).getTime();
    expect(formatTimeOfDay(new Date(2026, 10, 21, 14, 32).getTime(), now)).toBe('14:32');
    expect(formatTimeOfDay(new Date(2026, 10, 22, 9, 5).getTime(), now)).toBe('2026-11-22 09:05');
  });

  it('puts the currency symbol before the amount, or after it with swipe_symbol', () => {
    expect(formatMoney(7.7, { symbol: '$', swipe_symbol: false, decimal: 2 })).toBe('$7.70');
    expect(formatMoney(7.7, { symbol: '€', swipe_symbol: true, decimal: 2 })).toBe('7.70 €');
    expect(formatMoney(-0.7, { symbol: '$', swipe_symbol: false, decimal: 2 })).toBe('-$0.70');
    expect(formatMoney(3, { symbol: '$', swipe_symbol: false, decimal: 0 })).toBe('$3');
  });

  it('keeps an amount whole inside a right-to-left sentence, and leaves a left-to-right one alone', () => {
    expect(isolateLtr('$6.00', 'rtl')).toBe('\u2066$6.00\u2069');
    expect(isolateLtr('$6.00', 'ltr')).toBe('$6.00');
  });

  it('shows miles when convert_to_mile is on', () => {
    expect(distanceIn(16.09344, { convert_to_mile: true })).toEqual({ value: 10, unit: 'units.mi' });
    expect(distanceIn(2.04, { convert_to_mile: false })).toEqual({ value: 2, unit: 'units.km' });
  });

  it('decodes the server polyline at precision 5', () => {
    expect(decodePolyline('_p~iF~ps|U_ulLnnqC_mqNvxq`@')).toEqual([
      { lat: 38.5, lng: -120.2 },
      { lat: 40.7, lng: -120.95 },
      { lat: 43.252, lng: -126.453 },
    ]);
  });

  it('walks along a path and stops at its end', () => {
    const path = [
      { lat: 39.28, lng: -76.6 },
      { lat: 39.29, lng: -76.6 },
    ];
    const halfway = pointAlong(path, 556);
    expect(halfway.point.lat).toBeCloseTo(39.285, 3);
    expect(halfway.done).toBe(false);
    expect(pointAlong(path, 5000)).toMatchObject({ point: path[1], done: true });
  });
});
