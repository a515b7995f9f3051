// The estimate's breakdown (issue #34, `Estimate.breakdown`): how the fare
// is made, line by line, as the engine computed it. Base, distance and time
// always show (they are the formula); the other lines only when they add or
// take something.
import type { FareBreakdown } from '@/types/api';

export interface BreakdownLine {
  id: 'base' | 'distance' | 'time' | 'parcel' | 'option' | 'minimumTopUp' | 'convenienceFees' | 'promo' | 'payable';
  /** What the line adds (the promo's line is negative: it takes away). */
  amount: number;
  /** The last line: what the rider pays. */
  total?: boolean;
}

const ALWAYS: BreakdownLine['id'][] = ['base', 'distance', 'time'];
const WHEN_NOT_ZERO: BreakdownLine['id'][] = ['parcel', 'option', 'minimumTopUp', 'convenienceFees'];

export function breakdownLines(breakdown: FareBreakdown): BreakdownLine[] {
  const lines: BreakdownLine[] = ALWAYS.map((id) => ({ id, amount: breakdown[id as keyof FareBreakdown] }));
  for (const id of WHEN_NOT_ZERO) {
    const amount = breakdown[id as keyof FareBreakdown];
    if (amount !== 0) lines.push({ id, amount });
  }
  if (breakdown.promo !== 0) lines.push({ id: 'promo', amount: -Math.abs(breakdown.promo) });
  lines.push({ id: 'payable', amount: breakdown.payable, total: true });
  return lines;
}
