import { describe, expect, it } from 'vitest';
import { entryText, isHandOffer, type DispatchEntry } from '../dispatch-entries';
import { buildTimeline } from '../dispatch-timeline';
import { durationText, rateText } from '../durations';

const T0 = 1_800_000_000_000;
const at = (seconds: number) => T0 + seconds * 1000;

/** Two waves, a decline and an expiry in the first, an acceptance in the second. */
const entries: DispatchEntry[] = [
  { at: at(0.4), booking: 'b', kind: 'offered', wave: 1, drivers: ['d1', 'd2'], distances_km: [0.9, 1.6], deadline: at(15.4) },
  { at: at(6), booking: 'b', kind: 'withdrawn', drivers: ['d1'], reason: 'declined' },
  { at: at(15.4), booking: 'b', kind: 'withdrawn', drivers: ['d2'], reason: 'expired' },
  { at: at(15.5), booking: 'b', kind: 'offered', wave: 2, drivers: ['d3', 'd4'], distances_km: [2.2, null], deadline: at(30.5) },
  { at: at(24), booking: 'b', kind: 'accepted', driver: 'd4' },
  { at: at(24), booking: 'b', kind: 'withdrawn', drivers: ['d3'], reason: 'taken' },
];

describe('a booking dispatch timeline', () => {
  it('lists the waves with each driver, the distance and what became of the offer, and how long it lasted', () => {
    const timeline = buildTimeline(entries);
    expect(timeline.waves.map((wave) => wave.wave)).toEqual([1, 2]);
    expect(timeline.waves[0].offers).toEqual([
      { driver: 'd1', distanceKm: 0.9, outcome: 'declined', endedAt: at(6), lasted: 5600 },
      { driver: 'd2', distanceKm: 1.6, outcome: 'expired', endedAt: at(15.4), lasted: 15_000 },
    ]);
    expect(timeline.waves[1].offers.map((offer) => [offer.driver, offer.distanceKm, offer.outcome, offer.lasted])).toEqual([
      ['d3', 2.2, 'taken', 8500],
      ['d4', null, 'accepted', 8500],
    ]);
    expect(timeline.firstOfferAfter).toBe(0);
    expect(timeline.acceptedAfter).toBe(23_600);
  });

  it('puts the entries in time order with the time since the first and since the one before, whatever order they came in', () => {
    // Entries of the same moment keep the order they came in.
    const timeline = buildTimeline([entries[3], entries[0], entries[4], entries[5], entries[2], entries[1]]);
    expect(timeline.rows.map((row) => row.kind)).toEqual(['offered', 'withdrawn', 'withdrawn', 'offered', 'accepted', 'withdrawn']);
    expect(timeline.rows.map((row) => row.sincePrevious)).toEqual([0, 5600, 9400, 100, 8500, 0]);
    expect(timeline.rows.at(-1)!.sinceStart).toBe(23_600);
  });

  it("measures the first offer and the acceptance from the booking's start when it is known", () => {
    const timeline = buildTimeline(entries, T0 - 600);
    expect(timeline.firstOfferAfter).toBe(1000);
    expect(timeline.acceptedAfter).toBe(24_600);
    // Never from a start later than the first entry.
    expect(buildTimeline(entries, at(5)).firstOfferAfter).toBe(0);
  });

  it('leaves an offer still open as pending, and is empty for a booking never dispatched', () => {
    const open = buildTimeline(entries.slice(0, 1));
    expect(open.waves[0].offers.map((offer) => offer.outcome)).toEqual(['pending', 'pending']);
    expect(open.acceptedAfter).toBeNull();
    expect(buildTimeline([])).toEqual({ rows: [], waves: [], firstOfferAfter: null, acceptedAfter: null });
  });
});

describe("an admin's offer in the timeline", () => {
  const byAdmin: DispatchEntry = { at: at(30), booking: 'b', kind: 'offered', wave: 0, drivers: ['d9'], distances_km: [null], deadline: null };

  it('is told from the system\'s offers: no deadline and no distance known', () => {
    expect(isHandOffer(byAdmin)).toBe(true);
    expect(isHandOffer(entries[0])).toBe(false);
    // A broadcast offer has no deadline either, but the distances are known.
    expect(isHandOffer({ ...entries[0], deadline: null })).toBe(false);
    const timeline = buildTimeline([...entries.slice(0, 3), byAdmin, { at: at(31), booking: 'b', kind: 'accepted', driver: 'd9' }]);
    expect(timeline.waves.map((wave) => [wave.wave, wave.byAdmin])).toEqual([
      [1, false],
      [0, true],
    ]);
    expect(timeline.waves[1].offers[0]).toMatchObject({ driver: 'd9', outcome: 'accepted', lasted: 1000 });
  });

  it('is worded as the admin\'s, naming the driver', () => {
    const t = (key: string, values?: Record<string, unknown>) => `${key} ${JSON.stringify(values ?? {})}`;
    expect(entryText(byAdmin, t, (id) => `Driver ${id}`)).toBe('dispatch.entry.offered_by_admin {"driver":"Driver d9"}');
    expect(entryText(entries[0], t)).toBe('dispatch.entry.offered {"wave":1,"count":2}');
  });
});

describe('durations and rates in words', () => {
  it('use milliseconds, tenths of seconds, seconds, minutes and hours as they grow', () => {
    expect(durationText(850)).toEqual({ key: 'dispatch.unit.ms', values: { value: 850 } });
    expect(durationText(5600)).toEqual({ key: 'dispatch.unit.s', values: { value: '5.6' } });
    expect(durationText(23_600)).toEqual({ key: 'dispatch.unit.s', values: { value: 24 } });
    expect(durationText(185_000)).toEqual({ key: 'dispatch.unit.min_s', values: { minutes: 3, seconds: '05' } });
    expect(durationText(3_720_000)).toEqual({ key: 'dispatch.unit.h_min', values: { hours: 1, minutes: '02' } });
    expect(durationText(-5)).toEqual({ key: 'dispatch.unit.ms', values: { value: 0 } });
    expect(rateText(0.256)).toEqual({ key: 'dispatch.unit.percent', values: { value: 26 } });
  });
});
