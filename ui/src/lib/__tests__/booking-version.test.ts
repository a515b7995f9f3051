import { describe, expect, it } from 'vitest';
import { newestBooking, newestBookingPage } from '@/lib/booking-version';
import { assigned, testBooking } from '@/testing/fixtures';
import type { Booking } from '@/types/api';
import type { Page } from '@/types/app';

describe('the newest copy of a booking wins', () => {
  it('keeps the copy with the higher version, and takes the incoming one on a tie', () => {
    const arrived = assigned({ status: 'ARRIVED', version: 3 });
    expect(newestBooking(arrived, assigned({ version: 2 })).status).toBe('ARRIVED');
    expect(newestBooking(arrived, assigned({ status: 'STARTED', version: 4 })).status).toBe('STARTED');
    expect(newestBooking(arrived, assigned({ status: 'ARRIVED', version: 3, driver_name: 'Driver 9' })).driver_name).toBe('Driver 9');
    expect(newestBooking(undefined, testBooking()).status).toBe('NEW');
  });

  it('keeps each newer row of a page and takes the page\'s rows and order otherwise', () => {
    const current: Page<Booking> = { items: [assigned({ status: 'REACHED', version: 5 })], next: null };
    const incoming: Page<Booking> = { items: [testBooking({ id: 'b2' }), assigned({ status: 'STARTED', version: 4 })], next: 'x' };
    const merged = newestBookingPage(current, incoming);
    expect(merged.items.map((item) => [item.id, item.status])).toEqual([
      ['b2', 'NEW'],
      ['booking-1', 'REACHED'],
    ]);
    expect(merged.next).toBe('x');
  });
});
