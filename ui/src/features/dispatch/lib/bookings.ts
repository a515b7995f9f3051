// The active bookings as the console draws them: where each waits, since
// when, the offers it holds now (from `GET /dispatch/active`, then the
// `dispatch` log's offered and withdrawn entries) and who is driving to it.
import { isUnassigned, minutesUnassigned, unassignedSince } from '@/lib/booking-state';
import type { Booking, BookingStatus, LatLng } from '@/types/api';
import type { DispatchEntry } from '@/lib/dispatch-entries';
import type { ActiveBooking } from './types';

export interface ConsoleOffer {
  driver: string;
  deadline: number | null;
  distanceKm: number | null;
  wave: number | null;
}

export interface ConsoleBooking {
  id: string;
  /** Null until the booking itself is known (a log entry may come first). */
  booking: Booking | null;
  offers: ConsoleOffer[];
}

/** Active statuses: the console forgets a booking once it is over. */
const FINISHED: BookingStatus[] = ['COMPLETE', 'CANCELLED'];
/** Still looking for a driver. */
const WAITING: BookingStatus[] = ['PAYMENT_PENDING', 'NEW'];
/** A driver is on the way. */
const GOING_TO_PICKUP: BookingStatus[] = ['ACCEPTED', 'ARRIVED'];

/** Bookings waiting longer than these are counted by the figures too. */
export const WAIT_WARN_MS = 2 * 60_000;
export const WAIT_ALERT_MS = 5 * 60_000;

/** An offer past its deadline by this much is gone even if its withdrawal was lost. */
const STALE_OFFER_MS = 5_000;

export function isWaiting(status: BookingStatus) {
  return WAITING.includes(status);
}

/** When a booking started waiting for a driver: a Book Later one from its trip date. */
export function waitingSince(booking: Booking): number {
  return booking.bookLater && booking.tripdate > booking.bookingDate ? booking.tripdate : booking.bookingDate;
}

export type WaitBucket = 'fresh' | 'over_2' | 'over_5' | 'served';

export function waitBucket(booking: Booking, now: number): WaitBucket {
  if (!isWaiting(booking.status)) return 'served';
  const waited = now - waitingSince(booking);
  if (waited > WAIT_ALERT_MS) return 'over_5';
  if (waited > WAIT_WARN_MS) return 'over_2';
  return 'fresh';
}

function newer(current: Booking | null, incoming: Booking): boolean {
  if (!current) return true;
  return (incoming.version ?? 0) >= (current.version ?? 0);
}

/** The console's starting state from `GET /dispatch/active`. */
export function fromActive(list: readonly ActiveBooking[]): Map<string, ConsoleBooking> {
  const bookings = new Map<string, ConsoleBooking>();
  for (const { offered = [], ...booking } of list) {
    bookings.set(booking.id, {
      id: booking.id,
      booking: booking as Booking,
      offers: offered.map((offer) => ({ driver: offer.driver, deadline: offer.deadline, distanceKm: offer.distance_km, wave: null })),
    });
  }
  return bookings;
}

/** A `booking` event, in place: a finished booking leaves the map; one no
 * longer waiting holds no offers. Returns whether anything changed. */
export function applyBooking(bookings: Map<string, ConsoleBooking>, incoming: Booking): boolean {
  const current = bookings.get(incoming.id);
  if (current && !newer(current.booking, incoming)) return false;
  if (FINISHED.includes(incoming.status)) return bookings.delete(incoming.id);
  const offers = isWaiting(incoming.status) ? (current?.offers ?? []) : [];
  bookings.set(incoming.id, { id: incoming.id, booking: incoming, offers });
  return true;
}

/** A `dispatch` entry, in place: offers appear on `offered` and go on
 * `withdrawn`, `accepted`, `exhausted` and `cancelled`. Returns whether the
 * offers changed. */
export function applyDispatchEntry(bookings: Map<string, ConsoleBooking>, entry: DispatchEntry): boolean {
  const current = bookings.get(entry.booking);
  switch (entry.kind) {
    case 'offered': {
      const drivers = entry.drivers ?? [];
      if (drivers.length === 0) return false;
      const record = current ?? { id: entry.booking, booking: null, offers: [] };
      const fresh: ConsoleOffer[] = drivers.map((driver, index) => ({
        driver,
        deadline: entry.deadline ?? null,
        distanceKm: entry.distances_km?.[index] ?? null,
        wave: entry.wave ?? null,
      }));
      const named = new Set(drivers);
      record.offers = [...record.offers.filter((offer) => !named.has(offer.driver)), ...fresh];
      bookings.set(entry.booking, record);
      return true;
    }
    case 'withdrawn': {
      if (!current) return false;
      const gone = new Set(entry.drivers ?? []);
      const left = current.offers.filter((offer) => !gone.has(offer.driver));
      const changed = left.length !== current.offers.length;
      current.offers = left;
      return changed;
    }
    case 'accepted':
    case 'exhausted': {
      if (!current || current.offers.length === 0) return false;
      current.offers = [];
      return true;
    }
    case 'cancelled':
      return bookings.delete(entry.booking);
    case 'no_candidates':
      return false;
  }
}

/** Drops offers well past their deadline (a lost withdrawal must not leave a line forever). */
export function pruneStaleOffers(bookings: Map<string, ConsoleBooking>, now: number): boolean {
  let changed = false;
  for (const record of bookings.values()) {
    const left = record.offers.filter((offer) => offer.deadline === null || offer.deadline + STALE_OFFER_MS > now);
    if (left.length !== record.offers.length) {
      record.offers = left;
      changed = true;
    }
  }
  return changed;
}

/** Whole seconds left on an offer, never below zero; null without a deadline. */
export function secondsLeft(deadline: number | null, now: number): number | null {
  if (deadline === null) return null;
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}

type Locate = (driver: string) => LatLng | null;

export interface UnassignedRow {
  booking: Booking;
  /** Whole minutes it has waited for a driver. */
  minutes: number;
}

/** The unassigned bookings (lib/booking-state), the longest waiting first. */
export function unassignedRows(bookings: Iterable<ConsoleBooking>, now: number): UnassignedRow[] {
  const rows: (UnassignedRow & { since: number })[] = [];
  for (const { booking } of bookings) {
    if (!booking || !isUnassigned(booking, now)) continue;
    rows.push({ booking, minutes: minutesUnassigned(booking, now), since: unassignedSince(booking) });
  }
  rows.sort((left, right) => left.since - right.since || left.booking.id.localeCompare(right.booking.id));
  return rows.map(({ booking, minutes }) => ({ booking, minutes }));
}

/** The pickups, coloured on the map by status and by how long they waited;
 * an unassigned one (lib/booking-state) is drawn apart. */
export function pickupFeatures(bookings: Iterable<ConsoleBooking>, now: number): GeoJSON.Feature<GeoJSON.Point>[] {
  const features: GeoJSON.Feature<GeoJSON.Point>[] = [];
  for (const { booking } of bookings) {
    if (!booking?.pickup) continue;
    features.push({
      type: 'Feature',
      id: booking.id,
      properties: {
        id: booking.id,
        status: booking.status,
        wait: waitBucket(booking, now),
        reference: booking.reference,
        unassigned: isUnassigned(booking, now),
      },
      geometry: { type: 'Point', coordinates: [booking.pickup.lng, booking.pickup.lat] },
    });
  }
  return features;
}

/** A line from each pickup to each driver it is offered to, labelled with
 * the offer's countdown, and from a booking's assigned driver on the way. */
/** Whether the booking's driver is on the way to its pickup. */
export function goingToPickup(booking: Pick<Booking, 'status' | 'driver'>) {
  return Boolean(booking.driver) && GOING_TO_PICKUP.includes(booking.status);
}

/** What is left of a road route ([lng, lat] points) from a driver at `at`:
 * the driver, then the route after its point nearest to them. */
export function remainingRoute(route: readonly [number, number][], at: { lat: number; lng: number }): [number, number][] {
  if (route.length === 0) return [[at.lng, at.lat]];
  // Distances in degrees, with longitude shrunk to its true width here.
  const scale = Math.cos((at.lat * Math.PI) / 180);
  let nearest = 0;
  let best = Number.POSITIVE_INFINITY;
  for (let index = 0; index < route.length; index++) {
    const dx = (route[index][0] - at.lng) * scale;
    const dy = route[index][1] - at.lat;
    const distance = dx * dx + dy * dy;
    if (distance < best) {
      best = distance;
      nearest = index;
    }
  }
  const rest = route.slice(nearest + 1);
  return [[at.lng, at.lat], ...(rest.length > 0 ? rest : [route[route.length - 1]])];
}

/**
 * Offer lines (booking to each driver offered, with the countdown) and the
 * assigned driver's way to the pickup: along the road route when one is
 * known for the booking (`routes`, [lng, lat] points), else straight.
 */
export function lineFeatures(
  bookings: Iterable<ConsoleBooking>,
  locate: Locate,
  now: number,
  countdown: (seconds: number) => string = (seconds) => `${seconds}s`,
  routes: ReadonlyMap<string, [number, number][]> = new Map(),
): GeoJSON.Feature<GeoJSON.LineString>[] {
  const features: GeoJSON.Feature<GeoJSON.LineString>[] = [];
  for (const { booking, offers } of bookings) {
    if (!booking?.pickup) continue;
    const pickup = [booking.pickup.lng, booking.pickup.lat];
    for (const offer of offers) {
      const at = locate(offer.driver);
      if (!at) continue;
      const left = secondsLeft(offer.deadline, now);
      features.push({
        type: 'Feature',
        properties: { kind: 'offer', booking: booking.id, driver: offer.driver, label: left === null ? '' : countdown(left) },
        geometry: { type: 'LineString', coordinates: [pickup, [at.lng, at.lat]] },
      });
    }
    if (booking.driver && goingToPickup(booking)) {
      const at = locate(booking.driver);
      if (at) {
        const route = routes.get(booking.id);
        const routed = route !== undefined && route.length > 1;
        features.push({
          type: 'Feature',
          properties: { kind: 'assigned', booking: booking.id, driver: booking.driver, label: '', routed },
          geometry: { type: 'LineString', coordinates: routed ? remainingRoute(route, at) : [[at.lng, at.lat], pickup] },
        });
      }
    }
  }
  return features;
}
