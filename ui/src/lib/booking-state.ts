// What a booking's state means to the people watching it, where more than
// one screen must agree: the dashboard's card, the live console's list and
// map, and the bookings grid all ask "is this one unassigned?" here.
// Relative, not '@/': the browser tests count with this same rule.
import type { Booking } from '../types/api';

/** A Book Later booking needs a driver this long before its trip date (the
 * spec's minimum lead time, §9): from then on, nobody taking it is a problem. */
export const UNASSIGNED_LEAD_MS = 15 * 60_000;

type Scheduled = Pick<Booking, 'status' | 'bookLater' | 'tripdate'>;

/**
 * Unassigned: NEW (nobody has accepted it) and due — a Book Now booking at
 * once, a Book Later one from 15 minutes before its trip date. A Book Later
 * trip further ahead is not unassigned yet; a PAYMENT_PENDING one is not
 * dispatched at all until the rider pays.
 */
export function isUnassigned(booking: Scheduled, now: number): boolean {
  if (booking.status !== 'NEW') return false;
  return !booking.bookLater || booking.tripdate - UNASSIGNED_LEAD_MS <= now;
}

/** When an unassigned booking began waiting for a driver: the server's
 * `searchingSince` when it says, else when the booking became due (its
 * creation, or 15 minutes before a Book Later trip). */
export function unassignedSince(booking: Scheduled & Pick<Booking, 'bookingDate' | 'searchingSince'>): number {
  if (typeof booking.searchingSince === 'number') return booking.searchingSince;
  return booking.bookLater ? Math.max(booking.bookingDate, booking.tripdate - UNASSIGNED_LEAD_MS) : booking.bookingDate;
}

/** Whole minutes an unassigned booking has waited, never below zero. */
export function minutesUnassigned(booking: Scheduled & Pick<Booking, 'bookingDate' | 'searchingSince'>, now: number): number {
  return Math.max(0, Math.floor((now - unassignedSince(booking)) / 60_000));
}

/** How many of `bookings` are unassigned at `now`. */
export function countUnassigned(bookings: readonly Scheduled[], now: number): number {
  let count = 0;
  for (const booking of bookings) if (isUnassigned(booking, now)) count++;
  return count;
}
