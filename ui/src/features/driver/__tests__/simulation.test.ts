import { describe, expect, it } from 'vitest';
import { distanceMeters } from '@/lib/polyline';
import { assigned } from '@/testing/fixtures';
import { advance, legFor, MIN_SIMULATED_SPEED_MPS, SIMULATED_LEG_SECONDS, speedFor, tripPath } from '../lib/simulation';

describe('simulated driving', () => {
  it('drives to the pickup once accepted, to the drop once started, and waits otherwise', () => {
    expect(legFor(null)).toBe('wait');
    expect(legFor(assigned({ status: 'ACCEPTED' }))).toBe('to-pickup');
    expect(legFor(assigned({ status: 'ARRIVED' }))).toBe('wait');
    expect(legFor(assigned({ status: 'STARTED' }))).toBe('to-drop');
    expect(legFor(assigned({ status: 'REACHED' }))).toBe('wait');
  });

  it("follows the booking's route, or a straight line without one", () => {
    expect(tripPath(assigned())).toHaveLength(2);
    const booking = assigned({ coords: [] });
    expect(tripPath(booking)).toEqual([booking.pickup, booking.drop]);
  });

  it('drives a leg in about 25 seconds, never slower than walking pace of a car', () => {
    const path = tripPath(assigned());
    const length = distanceMeters(path[0], path[1]);
    expect(speedFor(path)).toBeCloseTo(Math.max(MIN_SIMULATED_SPEED_MPS, length / SIMULATED_LEG_SECONDS));
    let travelled = 0;
    let ticks = 0;
    let done = false;
    while (!done && ticks < 100) {
      const step = advance(path, travelled, speedFor(path));
      travelled = step.travelled;
      done = step.done;
      ticks += 1;
    }
    expect(ticks).toBeLessThanOrEqual(SIMULATED_LEG_SECONDS + 1);
  });
});
