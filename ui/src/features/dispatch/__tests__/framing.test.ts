import { describe, expect, it } from 'vitest';
import { frameFor } from '@/lib/map-frame';
import { testBooking } from '@/testing/fixtures';
import { fromActive, type ConsoleBooking } from '../lib/bookings';
import { focusPoints, overviewKey, overviewPoints } from '../lib/framing';

const CITY = { lat: 39.286, lng: -76.58 };
const positions: Record<string, { lat: number; lng: number }> = {
  d1: { lat: 39.3, lng: -76.6 },
  d2: { lat: 39.31, lng: -76.55 },
  d3: { lat: 39.25, lng: -76.65 },
};
const locate = (driver: string) => positions[driver] ?? null;
const PICKUP = { lat: 39.2825, lng: -76.5927 };

function record(overrides: Parameters<typeof testBooking>[0], offers: string[] = []): ConsoleBooking {
  return { id: 'booking-1', booking: testBooking(overrides), offers: offers.map((driver) => ({ driver, deadline: null, distanceKm: null, wave: 1 })) };
}

describe("what the console's map frames", () => {
  it('a chosen booking: its pickup and its driver, fitted with a margin', () => {
    const points = focusPoints(record({ status: 'ACCEPTED', driver: 'd1' }), locate);
    expect(points).toEqual([PICKUP, positions.d1]);
    expect(frameFor(points, CITY, 80)).toEqual({
      kind: 'bounds',
      bounds: { west: -76.6, south: 39.2825, east: -76.5927, north: 39.3 },
      padding: 80,
      maxZoom: 15,
    });
  });

  it('a booking nobody has taken yet: its pickup and the drivers it is offered to', () => {
    expect(focusPoints(record({ status: 'NEW', driver: null }, ['d2', 'd3', 'gone']), locate)).toEqual([PICKUP, positions.d2, positions.d3]);
  });

  it('a booking whose driver is not on the map: its pickup alone, at street level', () => {
    const points = focusPoints(record({ status: 'STARTED', driver: 'offline' }), locate);
    expect(points).toEqual([PICKUP]);
    expect(frameFor(points, CITY)).toMatchObject({ kind: 'centre', centre: PICKUP, zoom: 14 });
  });

  it('nothing for a booking it does not know yet', () => {
    expect(focusPoints(undefined, locate)).toEqual([]);
    expect(focusPoints({ id: 'x', booking: null, offers: [] }, locate)).toEqual([]);
  });

  it('with nothing chosen: every driver and every pickup', () => {
    const bookings = fromActive([
      { ...testBooking({ id: 'a', pickup: { lat: 39.2, lng: -76.7, add: 'A' } }), offered: [] },
      { ...testBooking({ id: 'b', pickup: { lat: 39.4, lng: -76.5, add: 'B' } }), offered: [] },
    ]);
    const points = overviewPoints([positions.d1], bookings.values());
    expect(points).toEqual([positions.d1, { lat: 39.2, lng: -76.7 }, { lat: 39.4, lng: -76.5 }]);
    expect(frameFor(points, CITY, 40)).toMatchObject({ kind: 'bounds', bounds: { west: -76.7, south: 39.2, east: -76.5, north: 39.4 } });
    // And with nothing at all, the city.
    expect(frameFor(overviewPoints([], new Map().values()), CITY)).toEqual({ kind: 'centre', centre: CITY, zoom: 10 });
  });

  it('frames the overview again only when drivers or pickups first appear, or all go', () => {
    expect(overviewKey(0, 0)).not.toBe(overviewKey(3, 0));
    expect(overviewKey(3, 0)).toBe(overviewKey(300, 0));
    expect(overviewKey(3, 0)).not.toBe(overviewKey(3, 1));
  });
});
