import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { queryKeys } from '@/lib/query-keys';
import { assigned } from '@/testing/fixtures';
import type { Booking } from '@/types/api';
import type { Page } from '@/types/app';
import { bookingQueryOptions, bookingsQueryOptions } from '../api/bookings';

describe('reads of bookings crossing socket events', () => {
  it('a read of the booking answered before a socket event does not undo it', async () => {
    const client = new QueryClient();
    let answer: (booking: Booking) => void = () => {};
    const read = client.fetchQuery({
      ...bookingQueryOptions('booking-1'),
      queryFn: () => new Promise<Booking>((resolve) => (answer = resolve)),
    });
    // The socket brings STARTED while the read (which saw ARRIVED) is on its way.
    client.setQueryData<Booking>(queryKeys.bookings.detail('booking-1'), assigned({ status: 'STARTED', version: 4 }));
    answer(assigned({ status: 'ARRIVED', version: 3 }));
    await read;
    expect(client.getQueryData<Booking>(queryKeys.bookings.detail('booking-1'))?.status).toBe('STARTED');
  });

  it('a read of the list answered before a socket event does not undo it', async () => {
    const client = new QueryClient();
    let answer: (page: Page<Booking>) => void = () => {};
    const read = client.fetchQuery({
      ...bookingsQueryOptions(),
      queryFn: () => new Promise<Page<Booking>>((resolve) => (answer = resolve)),
    });
    client.setQueryData<Page<Booking>>(queryKeys.bookings.list(), { items: [assigned({ status: 'PAID', version: 7 })], next: null });
    answer({ items: [assigned({ status: 'REACHED', version: 6 })], next: null });
    await read;
    expect(client.getQueryData<Page<Booking>>(queryKeys.bookings.list())?.items[0].status).toBe('PAID');
  });
});
