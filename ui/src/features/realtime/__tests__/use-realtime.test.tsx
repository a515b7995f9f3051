import { useQuery } from '@tanstack/react-query';
import { act, screen } from '@testing-library/react';
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { notificationsAtom } from '@/components/ui/notifications/notifications-store';
import { queryKeys } from '@/lib/query-keys';
import { appStore } from '@/lib/store';
import { assigned, testBooking } from '@/testing/fixtures';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { Booking } from '@/types/api';
import { useRealtime } from '../hooks/use-realtime';

const fakeSocket = Object.assign(new EventEmitter(), {
  off(event: string, handler: (...args: unknown[]) => void) {
    fakeSocket.removeListener(event, handler);
    return fakeSocket;
  },
});

vi.mock('@/lib/socket', async (original) => ({
  ...(await original<typeof import('@/lib/socket')>()),
  connectSocket: vi.fn(() => fakeSocket),
  disconnectSocket: vi.fn(),
}));

function Trip({ userId }: { userId: string }) {
  useRealtime(userId);
  const { data } = useQuery({ queryKey: queryKeys.bookings.detail('booking-1'), queryFn: () => testBooking(), staleTime: Infinity });
  return <p data-testid="status">{data?.status} {data?.driver_name}</p>;
}

describe('the realtime connection', () => {
  it('shows a booking event on screen without reading the server again', async () => {
    const client = seededClient(testUser());
    client.setQueryData<Booking>(queryKeys.bookings.detail('booking-1'), testBooking());
    renderWithProviders(<Trip userId="user-rider-1" />, { client });
    expect(await screen.findByTestId('status')).toHaveTextContent('NEW');
    await act(async () => {
      fakeSocket.emit('booking', assigned());
      await new Promise((resolve) => setTimeout(resolve, 10));
    });
    await vi.waitFor(() => expect(screen.getByTestId('status')).toHaveTextContent('ACCEPTED Driver 1'));
  });

  it('reads live data again after the socket reconnects', async () => {
    const client = seededClient(testUser());
    client.setQueryData<Booking>(queryKeys.bookings.detail('booking-1'), testBooking());
    renderWithProviders(<Trip userId="user-rider-1" />, { client });
    await screen.findByTestId('status');
    act(() => {
      fakeSocket.emit('connect');
    });
    expect(client.getQueryState(queryKeys.bookings.detail('booking-1'))?.isInvalidated).toBe(true);
  });

  it("toasts a new parcel request in delivery words on a delivery platform", async () => {
    appStore.set(notificationsAtom, []);
    const driver = testUser({ id: 'user-driver-1', usertype: 'driver' });
    // The app's provider draws the toasts.
    renderWithProviders(<Trip userId={driver.id} />, { client: seededClient(driver, { appcat: 'delivery' }) });
    await screen.findByTestId('status');
    act(() => {
      fakeSocket.emit('notification', { key: 'accept_booking_request', body: 'You have a new booking request.', booking: 'parcel-1' });
    });
    expect(await screen.findByTestId('notification')).toHaveTextContent('You have a new delivery request.');
    appStore.set(notificationsAtom, []);
  });
});
