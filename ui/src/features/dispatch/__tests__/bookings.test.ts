import { describe, expect, it } from 'vitest';
import { testBooking } from '@/testing/fixtures';
import {
  applyBooking,
  applyDispatchEntry,
  fromActive,
  lineFeatures,
  pickupFeatures,
  pruneStaleOffers,
  remainingRoute,
  secondsLeft,
  unassignedRows,
  waitBucket,
  type ConsoleBooking,
} from '../lib/bookings';
import type { DispatchEntry } from '@/lib/dispatch-entries';

const NOW = 1_800_000_000_000;
const positions: Record<string, { lat: number; lng: number }> = {
  d1: { lat: 39.3, lng: -76.6 },
  d2: { lat: 39.31, lng: -76.61 },
  d3: { lat: 39.32, lng: -76.62 },
};
const locate = (driver: string) => positions[driver] ?? null;

function entry(kind: DispatchEntry['kind'], extra: Partial<DispatchEntry> = {}): DispatchEntry {
  return { at: NOW, booking: 'booking-1', kind, car_type: 'Economy', ...extra };
}

function waiting() {
  return fromActive([{ ...testBooking({ status: 'NEW', bookingDate: NOW - 1000, version: 1 }), offered: [] }]);
}

const offerLines = (bookings: Map<string, ConsoleBooking>, now = NOW) =>
  lineFeatures(bookings.values(), locate, now).filter((line) => line.properties?.kind === 'offer');

describe('offer lines on the map', () => {
  it('appear for each driver an `offered` entry names, with the countdown to its deadline', () => {
    const bookings = waiting();
    expect(applyDispatchEntry(bookings, entry('offered', { wave: 1, drivers: ['d1', 'd2'], distances_km: [1.2, 2.5], deadline: NOW + 15_000 }))).toBe(true);
    const lines = offerLines(bookings);
    expect(lines.map((line) => line.properties?.driver)).toEqual(['d1', 'd2']);
    expect(lines[0].properties?.label).toBe('15s');
    expect(lines[0].geometry.coordinates).toEqual([
      [testBooking().pickup.lng, testBooking().pickup.lat],
      [-76.6, 39.3],
    ]);
    expect(bookings.get('booking-1')!.offers[1]).toMatchObject({ driver: 'd2', distanceKm: 2.5, wave: 1 });
    expect(offerLines(bookings, NOW + 4_200)[0].properties?.label).toBe('11s');
  });

  it('go when the offer is withdrawn, one driver at a time', () => {
    const bookings = waiting();
    applyDispatchEntry(bookings, entry('offered', { wave: 1, drivers: ['d1', 'd2'], deadline: NOW + 15_000 }));
    applyDispatchEntry(bookings, entry('withdrawn', { drivers: ['d1'], reason: 'declined' }));
    expect(offerLines(bookings).map((line) => line.properties?.driver)).toEqual(['d2']);
    applyDispatchEntry(bookings, entry('withdrawn', { drivers: ['d2'], reason: 'expired' }));
    expect(offerLines(bookings)).toEqual([]);
  });

  it('all go on acceptance, and the assigned driver gets a line to the pickup once the booking says ACCEPTED', () => {
    const bookings = waiting();
    applyDispatchEntry(bookings, entry('offered', { wave: 1, drivers: ['d1', 'd2'], deadline: NOW + 15_000 }));
    applyDispatchEntry(bookings, entry('accepted', { driver: 'd2' }));
    expect(offerLines(bookings)).toEqual([]);
    applyBooking(bookings, testBooking({ status: 'ACCEPTED', driver: 'd2', version: 2 }));
    const lines = lineFeatures(bookings.values(), locate, NOW);
    expect(lines).toHaveLength(1);
    expect(lines[0].properties).toMatchObject({ kind: 'assigned', driver: 'd2' });
  });

  it('follow the road route to the pickup when one is known, from where the driver is now', () => {
    const bookings = waiting();
    applyBooking(bookings, testBooking({ status: 'ACCEPTED', driver: 'd2', version: 2 }));
    const pickup: [number, number] = [testBooking().pickup.lng, testBooking().pickup.lat];
    // d2 is at (-76.61, 39.31); the road goes east, then south to the pickup.
    const road: [number, number][] = [[-76.612, 39.31], [-76.605, 39.31], [-76.6, 39.305], pickup];
    const [line] = lineFeatures(bookings.values(), locate, NOW, undefined, new Map([['booking-1', road]]));
    expect(line.properties).toMatchObject({ kind: 'assigned', routed: true });
    // The road's points behind the driver are gone; the line starts at the driver.
    expect(line.geometry.coordinates).toEqual([[-76.61, 39.31], [-76.605, 39.31], [-76.6, 39.305], pickup]);
    // With no route, straight.
    const [straight] = lineFeatures(bookings.values(), locate, NOW);
    expect(straight.properties?.routed).toBe(false);
    expect(straight.geometry.coordinates).toEqual([[-76.61, 39.31], pickup]);
  });

  it('keep a second wave beside what is left of the first, and replace a driver offered again', () => {
    const bookings = waiting();
    applyDispatchEntry(bookings, entry('offered', { wave: 1, drivers: ['d1'], deadline: NOW + 5_000 }));
    applyDispatchEntry(bookings, entry('offered', { wave: 2, drivers: ['d1', 'd3'], deadline: NOW + 20_000 }));
    expect(bookings.get('booking-1')!.offers.map((offer) => [offer.driver, offer.wave])).toEqual([
      ['d1', 2],
      ['d3', 2],
    ]);
  });

  it('come from the starting state, and wait for the booking when the log is first to name it', () => {
    const bookings = fromActive([{ ...testBooking({ status: 'NEW' }), offered: [{ driver: 'd1', deadline: NOW + 9_000, distance_km: 0.8 }] }]);
    expect(offerLines(bookings).map((line) => line.properties?.label)).toEqual(['9s']);
    applyDispatchEntry(bookings, entry('offered', { booking: 'later', drivers: ['d2'], deadline: NOW + 9_000 }));
    expect(offerLines(bookings)).toHaveLength(1);
    applyBooking(bookings, testBooking({ id: 'later', status: 'NEW' }));
    expect(offerLines(bookings)).toHaveLength(2);
  });

  it('go with the booking when it is cancelled or finished, and a stale copy of it changes nothing', () => {
    const bookings = waiting();
    applyDispatchEntry(bookings, entry('offered', { drivers: ['d1'], deadline: NOW + 9_000 }));
    expect(applyBooking(bookings, testBooking({ status: 'NEW', version: 0 }))).toBe(false);
    applyDispatchEntry(bookings, entry('cancelled'));
    expect(bookings.size).toBe(0);
    const again = waiting();
    applyBooking(again, testBooking({ status: 'COMPLETE', version: 9 }));
    expect(again.size).toBe(0);
  });

  it('are dropped a few seconds past their deadline when the withdrawal never came', () => {
    const bookings = waiting();
    applyDispatchEntry(bookings, entry('offered', { drivers: ['d1'], deadline: NOW + 1_000 }));
    expect(pruneStaleOffers(bookings, NOW + 3_000)).toBe(false);
    expect(pruneStaleOffers(bookings, NOW + 7_000)).toBe(true);
    expect(offerLines(bookings)).toEqual([]);
    expect(secondsLeft(NOW - 5, NOW)).toBe(0);
    expect(secondsLeft(null, NOW)).toBeNull();
  });
});

describe('pickups on the map', () => {
  it('are coloured by how long a waiting booking waited, and as served once a driver has it', () => {
    const at = (minutesAgo: number, status = 'NEW' as const) => testBooking({ status, bookingDate: NOW - minutesAgo * 60_000, bookLater: false });
    expect(waitBucket(at(1), NOW)).toBe('fresh');
    expect(waitBucket(at(2.5), NOW)).toBe('over_2');
    expect(waitBucket(at(6), NOW)).toBe('over_5');
    expect(waitBucket(testBooking({ status: 'ACCEPTED', bookingDate: NOW - 600_000 }), NOW)).toBe('served');
    // A Book Later booking waits from its trip date.
    expect(waitBucket(testBooking({ status: 'NEW', bookLater: true, bookingDate: NOW - 3_600_000, tripdate: NOW - 30_000 }), NOW)).toBe('fresh');
    const features = pickupFeatures(fromActive([at(3)]).values(), NOW);
    expect(features[0].properties).toMatchObject({ id: 'booking-1', status: 'NEW', wait: 'over_2' });
  });

  it('mark the unassigned ones: NEW and due, not a Book Later trip an hour away nor one a driver took', () => {
    const due = testBooking({ id: 'due', status: 'NEW', bookLater: false, bookingDate: NOW - 60_000 });
    const later = testBooking({ id: 'later', status: 'NEW', bookLater: true, bookingDate: NOW - 60_000, tripdate: NOW + 3_600_000 });
    const soon = testBooking({ id: 'soon', status: 'NEW', bookLater: true, bookingDate: NOW - 60_000, tripdate: NOW + 10 * 60_000 });
    const taken = testBooking({ id: 'taken', status: 'ACCEPTED', driver: 'd1', bookLater: false });
    const features = pickupFeatures(fromActive([due, later, soon, taken]).values(), NOW);
    expect(Object.fromEntries(features.map((feature) => [feature.properties?.id, feature.properties?.unassigned]))).toEqual({
      due: true,
      later: false,
      soon: true,
      taken: false,
    });
  });
});

describe('what is left of a route', () => {
  const road: [number, number][] = [[0, 0], [0.01, 0], [0.02, 0], [0.03, 0]];
  it('starts at the driver and goes on after the point nearest to them', () => {
    expect(remainingRoute(road, { lat: 0.001, lng: 0.011 })).toEqual([[0.011, 0.001], [0.02, 0], [0.03, 0]]);
  });
  it('still ends at the pickup when the driver is past the last point', () => {
    expect(remainingRoute(road, { lat: 0, lng: 0.04 })).toEqual([[0.04, 0], [0.03, 0]]);
  });
  it('is the driver alone for an empty route', () => {
    expect(remainingRoute([], { lat: 1, lng: 2 })).toEqual([[2, 1]]);
  });
});

describe('the unassigned list', () => {
  it('holds the unassigned bookings, the longest waiting first, with the minutes each waited', () => {
    const rows = unassignedRows(
      fromActive([
        testBooking({ id: 'recent', status: 'NEW', bookLater: false, bookingDate: NOW - 2 * 60_000, searchingSince: NOW - 2 * 60_000 }),
        testBooking({ id: 'taken', status: 'ACCEPTED', driver: 'd1' }),
        testBooking({ id: 'oldest', status: 'NEW', bookLater: false, bookingDate: NOW - 11 * 60_000, searchingSince: null }),
        testBooking({ id: 'tomorrow', status: 'NEW', bookLater: true, tripdate: NOW + 86_400_000 }),
      ]).values(),
      NOW,
    );
    expect(rows.map((row) => [row.booking.id, row.minutes])).toEqual([
      ['oldest', 11],
      ['recent', 2],
    ]);
  });
});
