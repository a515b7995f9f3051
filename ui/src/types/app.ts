// Shapes the app reads that the OpenAPI document does not describe: the
// socket's payloads and the app's own compositions of the server's types.
// Everything the REST API answers is generated into ./api.ts.

import type { Booking, BookingPage, LatLng } from './api';

/** One keyset page of any list: the server's pages all share BookingPage's shape. */
export type Page<T> = Omit<BookingPage, 'items'> & { items: T[] };

/** One online driver of the socket's `drivers` feed. */
export interface LiveDriver extends LatLng {
  id: string;
  carType: string | null;
  /** Free for an offer: not on a trip. */
  available: boolean;
  /** No usable fix for 30 s: where they were, not where they are. */
  stale?: boolean;
}

/** A booking offered to the driver, with the moment the offer lapses. */
export interface Offer {
  booking: Booking;
  deadline: number | null;
  /** How far the driver was from the pickup when offered, in km (the
   * socket's `offer` knows it; a read of /tasks does not). */
  distanceKm?: number | null;
}
