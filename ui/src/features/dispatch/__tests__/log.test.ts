import { describe, expect, it } from 'vitest';
import { carTypesOf, filterLog, LOG_LIMIT, mergeEntries, NO_FILTER, pushEntry } from '../lib/log';
import type { DispatchEntry } from '@/lib/dispatch-entries';

const entry = (at: number, kind: DispatchEntry['kind'], extra: Partial<DispatchEntry> = {}): DispatchEntry => ({
  at,
  booking: 'b1',
  kind,
  car_type: 'Economy',
  ...extra,
});

describe('the event log', () => {
  it('keeps the newest first, puts a late entry in its place, and forgets past the last 500', () => {
    let log: DispatchEntry[] = [];
    log = pushEntry(log, entry(1, 'offered'));
    log = pushEntry(log, entry(3, 'accepted'));
    log = pushEntry(log, entry(2, 'withdrawn'));
    expect(log.map((item) => item.at)).toEqual([3, 2, 1]);
    for (let at = 4; at < LOG_LIMIT + 10; at++) log = pushEntry(log, entry(at, 'offered'));
    expect(log).toHaveLength(LOG_LIMIT);
    expect(log[0].at).toBe(LOG_LIMIT + 9);
    expect(log.at(-1)!.at).toBe(10);
  });

  it('merges the stored backlog in its place, each entry once, and keeps the last 500', () => {
    const live = [entry(5, 'accepted', { driver: 'd1' }), entry(4, 'offered', { wave: 2, drivers: ['d1'] })];
    const stored = [entry(5, 'accepted', { driver: 'd1' }), entry(4, 'offered', { wave: 2, drivers: ['d1'] }), entry(3, 'withdrawn', { drivers: ['d2'] }), entry(1, 'offered', { wave: 1, drivers: ['d2'] })];
    const merged = mergeEntries(live, stored);
    expect(merged.map((item) => `${item.at}${item.kind}`)).toEqual(['5accepted', '4offered', '3withdrawn', '1offered']);
    // Another wave at the same instant is another entry.
    expect(mergeEntries(merged, [entry(4, 'offered', { wave: 3, drivers: ['d1'] })])).toHaveLength(5);
    const many = Array.from({ length: LOG_LIMIT }, (_, index) => entry(10 + index, 'offered', { wave: index }));
    expect(mergeEntries(merged, many)).toHaveLength(LOG_LIMIT);
    expect(mergeEntries(merged, many)[0].at).toBe(LOG_LIMIT + 9);
  });

  it('filters by kind and car type', () => {
    const log = [entry(3, 'accepted'), entry(2, 'withdrawn', { car_type: 'Van' }), entry(1, 'offered')];
    expect(filterLog(log, NO_FILTER)).toHaveLength(3);
    expect(filterLog(log, { ...NO_FILTER, kinds: ['offered', 'accepted'] }).map((item) => item.kind)).toEqual(['accepted', 'offered']);
    expect(filterLog(log, { ...NO_FILTER, carType: 'Van' }).map((item) => item.kind)).toEqual(['withdrawn']);
    expect(carTypesOf(log)).toEqual(['Economy', 'Van']);
  });

  it("filters by fleet through the drivers, keeping the rest of a fleet's booking", () => {
    const fleets: Record<string, string> = { d1: 'fleet-a', d2: 'fleet-b' };
    const log = [
      entry(5, 'cancelled', { booking: 'b2' }),
      entry(4, 'exhausted', { booking: 'b1' }),
      entry(3, 'accepted', { booking: 'b3', driver: 'd1' }),
      entry(2, 'offered', { booking: 'b2', drivers: ['d2'] }),
      entry(1, 'offered', { booking: 'b1', drivers: ['d1', 'd9'] }),
    ];
    const fleetA = filterLog(log, { ...NO_FILTER, fleet: 'fleet-a' }, (driver) => fleets[driver]);
    expect(fleetA.map((item) => `${item.booking}:${item.kind}`)).toEqual(['b1:exhausted', 'b3:accepted', 'b1:offered']);
    const fleetB = filterLog(log, { ...NO_FILTER, fleet: 'fleet-b' }, (driver) => fleets[driver]);
    expect(fleetB.map((item) => `${item.booking}:${item.kind}`)).toEqual(['b2:cancelled', 'b2:offered']);
  });
});
