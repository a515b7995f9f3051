import { describe, expect, it } from 'vitest';
import { applyActiveBooking, withBooking } from '@/lib/active-bookings';
import { queryKeys } from '@/lib/query-keys';
import { testBooking } from '@/testing/fixtures';
import { testQueryClient } from '@/testing/test-utils';
import type { Booking } from '@/types/api';

describe('the active bookings kept by the socket', () => {
  const waiting = testBooking({ id: 'a', status: 'NEW', version: 3 });

  it('takes a new active booking and the newer copy of a known one', () => {
    const list = withBooking([waiting], testBooking({ id: 'b', status: 'NEW' }));
    expect(list.map((booking) => booking.id)).toEqual(['a', 'b']);
    const taken = withBooking(list, testBooking({ id: 'a', status: 'ACCEPTED', version: 4 }));
    expect(taken.map((booking) => [booking.id, booking.status])).toEqual([
      ['a', 'ACCEPTED'],
      ['b', 'NEW'],
    ]);
  });

  it('keeps the list as it was for an older copy, and for a finished booking it never held', () => {
    const list = [waiting];
    expect(withBooking(list, testBooking({ id: 'a', status: 'CANCELLED', version: 2 }))).toBe(list);
    expect(withBooking(list, testBooking({ id: 'z', status: 'COMPLETE' }))).toBe(list);
  });

  it('lets a booking go once it is complete or cancelled', () => {
    expect(withBooking([waiting], testBooking({ id: 'a', status: 'CANCELLED', version: 5 }))).toEqual([]);
  });

  it('writes into the cache only when a screen has read the list', () => {
    const client = testQueryClient();
    applyActiveBooking(client, waiting);
    expect(client.getQueryData(queryKeys.bookings.active)).toBeUndefined();
    client.setQueryData<Booking[]>(queryKeys.bookings.active, []);
    applyActiveBooking(client, waiting);
    expect(client.getQueryData<Booking[]>(queryKeys.bookings.active)?.map((booking) => booking.id)).toEqual(['a']);
  });
});
