import { describe, expect, it } from 'vitest';
import { breakdownLines } from '../lib/fare-breakdown';

const zero = { base: 0, distance: 0, time: 0, parcel: 0, option: 0, minimumTopUp: 0, convenienceFees: 0, promo: 0, payable: 0 };

describe("the estimate's breakdown", () => {
  it('always has base, distance, time and what is paid; the rest only when not zero', () => {
    expect(breakdownLines(zero).map((line) => line.id)).toEqual(['base', 'distance', 'time', 'payable']);
    const every = breakdownLines({ base: 1, distance: 2, time: 3, parcel: 4, option: 5, minimumTopUp: 6, convenienceFees: 7, promo: 8, payable: 20 });
    expect(every.map((line) => [line.id, line.amount])).toEqual([
      ['base', 1],
      ['distance', 2],
      ['time', 3],
      ['parcel', 4],
      ['option', 5],
      ['minimumTopUp', 6],
      ['convenienceFees', 7],
      ['promo', -8],
      ['payable', 20],
    ]);
    expect(every.filter((line) => line.total).map((line) => line.id)).toEqual(['payable']);
  });
});
