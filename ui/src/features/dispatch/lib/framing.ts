// What the console's map frames (lib/map-frame does the fitting): a chosen
// booking's pickup with its driver — or, while nobody has taken it, the
// drivers it is offered to — and otherwise every driver and pickup.
import type { LatLng } from '@/types/api';
import type { ConsoleBooking } from './bookings';

type Locate = (driver: string) => LatLng | null;

/** A chosen booking: its pickup, and its driver where the map has them
 * (else the drivers it is offered to now). Empty when its pickup is unknown. */
export function focusPoints(record: ConsoleBooking | undefined, locate: Locate): LatLng[] {
  const booking = record?.booking;
  if (!booking?.pickup) return [];
  const pickup = { lat: booking.pickup.lat, lng: booking.pickup.lng };
  const driver = booking.driver ? locate(booking.driver) : null;
  if (driver) return [pickup, driver];
  const offered = (record?.offers ?? []).map((offer) => locate(offer.driver)).filter((at): at is LatLng => at !== null);
  return [pickup, ...offered];
}

/** Nothing chosen: every driver and every pickup the console shows. */
export function overviewPoints(drivers: Iterable<LatLng>, bookings: Iterable<ConsoleBooking>): LatLng[] {
  const points: LatLng[] = [];
  for (const driver of drivers) points.push({ lat: driver.lat, lng: driver.lng });
  for (const { booking } of bookings) if (booking?.pickup) points.push({ lat: booking.pickup.lat, lng: booking.pickup.lng });
  return points;
}

/** The overview is framed again when drivers or pickups first appear (or all
 * go): this says which of them there are. */
export function overviewKey(drivers: number, pickups: number) {
  return `${drivers > 0}-${pickups > 0}`;
}
