// The live dispatch console's data as the server sends it (docs/architecture.md
// "Live dispatch console (issue #15)"): the socket's `drivers`, `dispatch`,
// `console` and `hexes` events and the REST answers the screen reads.
import type { Booking } from '@/types/api';

/** What a driver is doing, as the `drivers` feed says. */
export type DriverState = 'available' | 'offered' | 'to_pickup' | 'on_trip' | 'busy';

export const DRIVER_STATES: DriverState[] = ['available', 'offered', 'to_pickup', 'on_trip', 'busy'];

/** One online driver of the `drivers` feed. */
export interface FeedDriver {
  id: string;
  carType: string | null;
  lat: number;
  lng: number;
  available: boolean;
  /** Absent on a server without the console: derived from `available`. */
  state?: DriverState;
  /** Degrees clockwise from north, or null when unknown. */
  heading?: number | null;
  /** No usable fix for 30 s: drawn greyed where last seen. */
  stale?: boolean;
}

/** The engine's `console::Figures`. Durations in milliseconds, rates 0 to 1;
 * null when nothing happened to measure. */
export interface Figures {
  at: number;
  online: number;
  available: number;
  open: number;
  waiting_over_2_min: number;
  waiting_over_5_min: number;
  dispatch_latency_p50: number | null;
  dispatch_latency_p99: number | null;
  acceptance_rate: number | null;
  time_to_accept_median: number | null;
  fulfilment: number | null;
}

/** The `console` event: the figures now, and the last hour once a minute, oldest first. */
export interface ConsoleEvent {
  figures: Figures;
  history: Figures[];
}

/** The engine's `console::HexCell`. */
export interface HexCell {
  cell: string;
  available: number;
  open: number;
  recent: number;
  unserved: number;
  /** Demand exceeds supply. */
  short: boolean;
  /** A closed ring of [lng, lat]. */
  boundary: [number, number][];
}

export interface HexesEvent {
  resolution: number;
  cells: HexCell[];
}

/** An offer a booking holds now (`GET /dispatch/active`). */
export interface ActiveOffer {
  driver: string;
  deadline: number | null;
  distance_km: number | null;
}

/** A booking of `GET /dispatch/active`: as the `booking` event shows it, with its offers. */
export type ActiveBooking = Booking & { offered?: ActiveOffer[] };

export const HEX_RESOLUTIONS = [6, 7, 8, 9, 10] as const;
export const DEFAULT_HEX_RESOLUTION = 8;
