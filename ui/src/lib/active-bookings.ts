// The platform's active bookings (`GET /dispatch/active`: every booking not
// COMPLETE or CANCELLED, a fleet admin's own), read once and then kept current
// by the socket's `booking` events (features/realtime writes each one here),
// for the dashboard's unassigned count. The live console reads the same route
// into its own store (features/dispatch), where the offers live too.
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { newestBooking } from '@/lib/booking-version';
import { queryKeys } from '@/lib/query-keys';
import type { Booking } from '@/types/api';

/** The route answers `{items}`; a bare list is read too. */
function itemsOf(payload: unknown): Booking[] {
  if (Array.isArray(payload)) return payload as Booking[];
  const items = payload && typeof payload === 'object' ? (payload as { items?: unknown }).items : undefined;
  return Array.isArray(items) ? (items as Booking[]) : [];
}

export const activeBookingsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.bookings.active,
    queryFn: async ({ signal }) => itemsOf(await api.get<unknown>('/dispatch/active', undefined, signal)),
    // The socket keeps it current; a reconnection reads it again (features/realtime).
    staleTime: Infinity,
  });

function isFinished(booking: Booking) {
  return booking.status === 'COMPLETE' || booking.status === 'CANCELLED';
}

/** The list with `incoming` in it at its newest copy, or out of it once
 * finished; the same list when nothing changed. */
export function withBooking(list: readonly Booking[], incoming: Booking): Booking[] {
  const index = list.findIndex((booking) => booking.id === incoming.id);
  if (index === -1) return isFinished(incoming) ? (list as Booking[]) : [...list, incoming];
  const newest = newestBooking(list[index], incoming);
  if (newest === list[index]) return list as Booking[];
  if (isFinished(newest)) return [...list.slice(0, index), ...list.slice(index + 1)];
  return [...list.slice(0, index), newest, ...list.slice(index + 1)];
}

/** A `booking` event, into the list when a screen has read it (never starts one). */
export function applyActiveBooking(client: QueryClient, incoming: Booking) {
  client.setQueryData<Booking[]>(queryKeys.bookings.active, (list) => (list ? withBooking(list, incoming) : list));
}
