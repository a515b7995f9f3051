import { describe, expect, it } from 'vitest';
import { chatDate, chatTime, distanceIn, formatMoney } from '@/lib/format';
import { decodePolyline, pointAlong } from '@/lib/polyline';

describe('formats', () => {
  it('writes chat dates as MM:DD:YYYY and times as HH:MM, zero-padded', () => {
    const at = new Date(2026, 2, 5, 7, 4).getTime();
    expect(chatDate(at)).toBe('03:05:2026');
    expect(chatTime(at)).toBe('07:04');
  });

  it('puts the currency symbol before the amount, or after it with swipe_symbol', () => {
    expect(formatMoney(7.7, { symbol: '$', swipe_symbol: false, decimal: 2 })).toBe('$7.70');
    expect(formatMoney(7.7, { symbol: '€', swipe_symbol: true, decimal: 2 })).toBe('7.70 €');
    expect(formatMoney(-0.7, { symbol: '$', swipe_symbol: false, decimal: 2 })).toBe('-$0.70');
    expect(formatMoney(3, { symbol: '$', swipe_symbol: false, decimal: 0 })).toBe('$3');
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
