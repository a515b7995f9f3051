// "Simulate driving": the car follows the route at a steady pace, for demos
// and tests where no device gives a real position.
import { coordsToPoints, distanceMeters, pointAlong } from '@/lib/polyline';
import type { Booking, LatLng } from '@/types/api';

/** The slowest simulated pace, metres per second. */
export const MIN_SIMULATED_SPEED_MPS = 15;
/** Each leg is driven in about this many seconds, so a demo never drags. */
export const SIMULATED_LEG_SECONDS = 25;
export const TICK_MS = 1000;
/** With nowhere to go the position is still sent now and then. */
export const IDLE_HEARTBEAT_TICKS = 10;

export type Leg = 'to-pickup' | 'to-drop' | 'wait';

/** Which leg of the trip the car drives for a booking's status. */
export function legFor(booking: Booking | null): Leg {
  if (!booking) return 'wait';
  if (booking.status === 'ACCEPTED') return 'to-pickup';
  if (booking.status === 'STARTED') return 'to-drop';
  return 'wait';
}

/** The trip's own route for the ride itself; pickup to drop in a line when it has none. */
export function tripPath(booking: Booking): LatLng[] {
  const coords = coordsToPoints(booking.coords);
  return coords.length > 1 ? coords : [booking.pickup, booking.drop];
}

/** Metres per tick for a path: its length over SIMULATED_LEG_SECONDS, at least the minimum pace. */
export function speedFor(path: LatLng[]) {
  let length = 0;
  for (let i = 1; i < path.length; i++) length += distanceMeters(path[i - 1], path[i]);
  return Math.max(MIN_SIMULATED_SPEED_MPS, length / SIMULATED_LEG_SECONDS);
}

export function advance(path: LatLng[], travelled: number, metres: number) {
  const next = travelled + metres;
  const { point, heading, done } = pointAlong(path, next);
  return { travelled: next, point, heading, done };
}
