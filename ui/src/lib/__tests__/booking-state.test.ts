import { describe, expect, it } from 'vitest';
import { countUnassigned, isUnassigned, minutesUnassigned, UNASSIGNED_LEAD_MS, unassignedSince } from '@/lib/booking-state';
import { testBooking } from '@/testing/fixtures';

const NOW = 1_800_000_000_000;
const MINUTE = 60_000;

describe('an unassigned booking', () => {
  it('is a NEW Book Now booking, from the moment it is made', () => {
    expect(isUnassigned(testBooking({ status: 'NEW', bookLater: false, bookingDate: NOW }), NOW)).toBe(true);
  });

  it('is a NEW Book Later booking only from 15 minutes before its trip date', () => {
    const later = testBooking({ status: 'NEW', bookLater: true, bookingDate: NOW - 90 * MINUTE, tripdate: NOW + 60 * MINUTE });
    expect(isUnassigned(later, NOW)).toBe(false);
    expect(isUnassigned(later, later.tripdate - UNASSIGNED_LEAD_MS - 1)).toBe(false);
    expect(isUnassigned(later, later.tripdate - UNASSIGNED_LEAD_MS)).toBe(true);
    // Past its trip date and still nobody: very much unassigned.
    expect(isUnassigned(later, later.tripdate + 10 * MINUTE)).toBe(true);
  });

  it('is never one a driver took, one that is over, or one waiting for its prepayment', () => {
    for (const status of ['PAYMENT_PENDING', 'ACCEPTED', 'ARRIVED', 'STARTED', 'REACHED', 'PENDING', 'PAID', 'COMPLETE', 'CANCELLED'] as const) {
      expect(isUnassigned(testBooking({ status, bookLater: false }), NOW), status).toBe(false);
    }
  });

  it('has waited since the server began the search, else since it became due', () => {
    expect(unassignedSince(testBooking({ bookLater: false, bookingDate: NOW - 5 * MINUTE, searchingSince: NOW - 3 * MINUTE }))).toBe(NOW - 3 * MINUTE);
    expect(unassignedSince(testBooking({ bookLater: false, bookingDate: NOW - 5 * MINUTE, searchingSince: null }))).toBe(NOW - 5 * MINUTE);
    expect(unassignedSince(testBooking({ bookLater: true, bookingDate: NOW - 90 * MINUTE, tripdate: NOW }))).toBe(NOW - 15 * MINUTE);
    // Booked later, but for less than 15 minutes ahead: due from its making.
    expect(unassignedSince(testBooking({ bookLater: true, bookingDate: NOW - 2 * MINUTE, tripdate: NOW + 10 * MINUTE }))).toBe(NOW - 2 * MINUTE);
  });

  it('counts whole minutes waited, never below zero', () => {
    const booking = testBooking({ bookLater: false, bookingDate: NOW - 7.9 * MINUTE, searchingSince: null });
    expect(minutesUnassigned(booking, NOW)).toBe(7);
    expect(minutesUnassigned(booking, NOW - 60 * MINUTE)).toBe(0);
  });

  it('is counted among others', () => {
    const bookings = [
      testBooking({ id: 'a', status: 'NEW', bookLater: false }),
      testBooking({ id: 'b', status: 'ACCEPTED' }),
      testBooking({ id: 'c', status: 'NEW', bookLater: true, tripdate: NOW + 5 * MINUTE }),
      testBooking({ id: 'd', status: 'NEW', bookLater: true, tripdate: NOW + 50 * MINUTE }),
    ];
    expect(countUnassigned(bookings, NOW)).toBe(2);
  });
});
