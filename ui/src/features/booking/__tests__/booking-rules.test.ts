import { describe, expect, it } from 'vitest';
import { testCarTypes, testUser } from '@/testing/test-utils';
import { bookingRuleError, deliveryFieldProblem, needsParcelChoice, optionRequired, parcelChoice, refusedDeliveryField, type BookingDraft } from '../lib/booking-rules';

const now = new Date(2026, 10, 21, 9, 0).getTime();
const place = { lat: 39.28, lng: -76.59, add: 'Fells Point' };
const ready: BookingDraft = { pickup: place, drop: { ...place, add: 'Patterson Park' }, carType: 'Economy', bookLater: false, tripDate: null };

describe('the booking rules of spec §5', () => {
  it('want a signed-in rider', () => {
    expect(bookingRuleError(ready, null, now)).toBe('must_login');
    expect(bookingRuleError(ready, testUser({ usertype: 'driver' }), now)).toBe('booking.riders_only');
    expect(bookingRuleError(ready, testUser(), now)).toBeNull();
  });

  it('want a complete profile', () => {
    expect(bookingRuleError(ready, testUser({ firstName: ' ' }), now)).toBe('profile_incomplete');
    expect(bookingRuleError(ready, testUser({ lastName: '' }), now)).toBe('profile_incomplete');
    expect(bookingRuleError(ready, testUser({ email: '' }), now)).toBe('profile_incomplete');
  });

  it('want a pickup, a drop and a car type', () => {
    expect(bookingRuleError({ ...ready, pickup: null }, testUser(), now)).toBe('select_proper');
    expect(bookingRuleError({ ...ready, drop: null }, testUser(), now)).toBe('select_proper');
    expect(bookingRuleError({ ...ready, carType: '' }, testUser(), now)).toBe('select_proper');
  });

  it('want a Book Later date at least 15 minutes ahead', () => {
    const later = { ...ready, bookLater: true };
    expect(bookingRuleError({ ...later, tripDate: null }, testUser(), now)).toBe('select_proper');
    expect(bookingRuleError({ ...later, tripDate: now + 10 * 60_000 }, testUser(), now)).toBe('past_booking_error');
    expect(bookingRuleError({ ...later, tripDate: now + 14 * 60_000 + 59_000 }, testUser(), now)).toBe('past_booking_error');
    expect(bookingRuleError({ ...later, tripDate: now + 15 * 60_000 }, testUser(), now)).toBeNull();
  });

  it('want a delivery person and a phone of at least 7 digits, spaces or dashes', () => {
    const filled = { deliveryPerson: 'Sam', deliveryPersonPhone: '410-555-0100', pickUpInstructions: '', deliveryInstructions: '' };
    expect(deliveryFieldProblem({ ...filled, deliveryPerson: '' })?.field).toBe('deliveryPerson');
    expect(deliveryFieldProblem({ ...filled, deliveryPersonPhone: '555-01' })?.field).toBe('deliveryPersonPhone');
    expect(deliveryFieldProblem({ ...filled, deliveryPersonPhone: '+1 410' })?.field).toBe('deliveryPersonPhone');
    expect(deliveryFieldProblem(filled)).toBeNull();
  });

  it('offer the parcel chooser only for delivery car types with parcel types or options', () => {
    expect(needsParcelChoice(testCarTypes[0], 'delivery')).toBe(true);
    expect(needsParcelChoice(testCarTypes[0], 'taxi')).toBe(false);
    expect(needsParcelChoice({ ...testCarTypes[0], parcelTypes: [], options: [] }, 'delivery')).toBe(false);
  });

  it('name the delivery field that is wrong, as the server checks it', () => {
    const filled = { deliveryPerson: 'Sam', deliveryPersonPhone: '410 555 0100', pickUpInstructions: '', deliveryInstructions: '' };
    expect(deliveryFieldProblem(filled)).toBeNull();
    expect(deliveryFieldProblem({ ...filled, deliveryPerson: '  ' })).toEqual({ field: 'deliveryPerson', key: 'booking.recipient_name_missing' });
    expect(deliveryFieldProblem({ ...filled, deliveryPersonPhone: '' })).toEqual({ field: 'deliveryPersonPhone', key: 'booking.recipient_phone_invalid' });
    expect(deliveryFieldProblem({ ...filled, deliveryPersonPhone: '-------' })?.field).toBe('deliveryPersonPhone');
    // International numbers, as the server takes them.
    expect(deliveryFieldProblem({ ...filled, deliveryPersonPhone: '+1 410 555 0100' })).toBeNull();
    expect(deliveryFieldProblem({ ...filled, deliveryInstructions: 'x'.repeat(501) })).toEqual({ field: 'deliveryInstructions', key: 'booking.instructions_too_long' });
    expect(refusedDeliveryField('deliveryPersonPhone')).toBe('deliveryPersonPhone');
    expect(refusedDeliveryField('carType')).toBeNull();
    expect(refusedDeliveryField(undefined)).toBeNull();
  });

  it('want a parcel type, but an option only when the car type requires one (issue #34)', () => {
    const car = testCarTypes[0];
    expect(optionRequired(car)).toBe(false);
    expect(optionRequired({ ...car, optionRequired: true })).toBe(true);
    expect(parcelChoice(car, 1, null)).toEqual({ parcelTypeIndex: 1, optionIndex: undefined });
    expect(parcelChoice(car, 0, 0)).toEqual({ parcelTypeIndex: 0, optionIndex: 0 });
    expect(parcelChoice({ ...car, options: [] }, 0, 0)).toEqual({ parcelTypeIndex: 0, optionIndex: undefined });
  });
});
