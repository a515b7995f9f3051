import { describe, expect, it } from 'vitest';
import { assigned, testBooking } from '@/testing/fixtures';
import type { BookingStatus } from '@/types/api';
import {
  BOOK_LATER_DISPATCH_LEAD_MS,
  canRebook,
  isScheduledAhead,
  movedDrop,
  nextStepKey,
  searchStartedAt,
} from '../lib/booking-status';

const NOW = Date.UTC(2026, 10, 21, 12, 0);
const HOUR = 3_600_000;

describe("the rider's next step", () => {
  it('says one thing per status', () => {
    const expected: Record<BookingStatus, string> = {
      PAYMENT_PENDING: 'trip.next.your_payment',
      NEW: 'trip.finding_driver',
      ACCEPTED: 'trip.next.driver_on_way',
      ARRIVED: 'trip.next.driver_arrived',
      STARTED: 'trip.next.on_trip',
      REACHED: 'trip.next.pay_driver',
      PENDING: 'trip.next.your_payment',
      PAID: 'trip.next.rate',
      COMPLETE: 'trip.next.complete',
      CANCELLED: 'trip.next.closed',
    };
    for (const [status, key] of Object.entries(expected)) {
      const booking = status === 'NEW' || status === 'PAYMENT_PENDING' ? testBooking({ status: status as BookingStatus }) : assigned({ status: status as BookingStatus });
      expect([status, nextStepKey(booking, NOW)]).toEqual([status, key]);
    }
  });

  it('waits for the trip date before a Book Later search, and leaves a prepaid trip to its driver', () => {
    const later = testBooking({ bookLater: true, tripdate: NOW + 2 * HOUR, searchingSince: null });
    expect(nextStepKey(later, NOW)).toBe('trip.scheduled_hint');
    expect(nextStepKey(later, NOW + 2 * HOUR - BOOK_LATER_DISPATCH_LEAD_MS)).toBe('trip.finding_driver');
    expect(nextStepKey(assigned({ status: 'REACHED', prepaid: true }), NOW)).toBe('trip.next.driver_finishing');
  });
});

describe('the wait for a driver', () => {
  it('counts from searchingSince, else from the booking, else from a Book Later dispatch', () => {
    expect(searchStartedAt(testBooking({ searchingSince: NOW - 5000, bookingDate: NOW - 9000 }))).toBe(NOW - 5000);
    expect(searchStartedAt(testBooking({ searchingSince: null, bookingDate: NOW - 9000 }))).toBe(NOW - 9000);
    const later = testBooking({ bookLater: true, searchingSince: null, bookingDate: NOW - 5 * HOUR, tripdate: NOW });
    expect(searchStartedAt(later)).toBe(NOW - BOOK_LATER_DISPATCH_LEAD_MS);
  });

  it('is a date, not a clock, for a Book Later trip whose search has not begun', () => {
    expect(isScheduledAhead(testBooking({ bookLater: true, tripdate: NOW + HOUR, searchingSince: null }), NOW)).toBe(true);
    expect(isScheduledAhead(testBooking({ bookLater: true, tripdate: NOW + HOUR, searchingSince: NOW - 1000 }), NOW)).toBe(false);
    expect(isScheduledAhead(testBooking({ bookLater: false, tripdate: NOW + HOUR }), NOW)).toBe(false);
  });
});

describe('where the trip ended', () => {
  const drop = { lat: 39.2905, lng: -76.5794, add: 'Patterson Park' };

  it('is shown beside the booked drop only past 200 m', () => {
    // 0.0017° of latitude ≈ 189 m; 0.0019° ≈ 211 m.
    expect(movedDrop(assigned({ drop, actualDrop: { ...drop, lat: drop.lat + 0.0017, add: 'Near' } }))).toBeNull();
    expect(movedDrop(assigned({ drop, actualDrop: { ...drop, lat: drop.lat + 0.0019, add: 'Far' } }))?.add).toBe('Far');
    expect(movedDrop(assigned({ drop, actualDrop: null }))).toBeNull();
    expect(movedDrop(assigned({ drop }))).toBeNull();
  });
});

describe('trying again', () => {
  it('is for the rider of a booking no driver took', () => {
    const noDriver = testBooking({ status: 'CANCELLED', reason: 'no_driver_available', cancelledBy: 'system' });
    expect(canRebook(noDriver, 'rider')).toBe(true);
    expect(canRebook(noDriver, 'driver')).toBe(false);
    expect(canRebook({ ...noDriver, reason: 'Changed my plans' }, 'rider')).toBe(false);
    expect(canRebook({ ...noDriver, status: 'NEW' }, 'rider')).toBe(false);
  });
});
