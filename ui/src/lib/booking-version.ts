// A booking reaches the cache by several roads — the socket's `booking` and
// `offer` events, a command's reply, a read of the list or of the booking —
// and they can cross: a read answered just before a change may land after
// the socket already brought the change. The server numbers every change
// (`version`, docs/api.md "Socket.IO"), so the cache keeps the highest.
import type { Booking } from '@/types/api';
import type { Page } from '@/types/app';

/** The newer of two copies of a booking; the incoming one on a tie. */
export function newestBooking(current: Booking | undefined, incoming: Booking): Booking {
  if (!current || current.id !== incoming.id) return incoming;
  return (current.version ?? 0) > (incoming.version ?? 0) ? current : incoming;
}

/** A page read from the server, each row kept at the newest copy the cache holds. */
export function newestBookingPage(current: Page<Booking> | undefined, incoming: Page<Booking>): Page<Booking> {
  if (!current) return incoming;
  const known = new Map(current.items.map((item) => [item.id, item]));
  return { ...incoming, items: incoming.items.map((item) => newestBooking(known.get(item.id), item)) };
}
