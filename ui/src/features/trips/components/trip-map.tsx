import { MapView } from '@/components/map/map-view';
import type { MapHeight, MapMarker } from '@/components/map/types';
import { coordsToPoints } from '@/lib/polyline';
import type { Booking, LatLng } from '@/types/api';

/** Pickup, drop, the route, and the car where the driver is. */
export function TripMap({
  booking,
  car,
  carKind = 'car',
  height,
}: {
  booking: Booking;
  car: (LatLng & { heading?: number }) | null;
  carKind?: 'car' | 'me';
  height?: MapHeight;
}) {
  const markers: MapMarker[] = [
    { id: 'pickup', kind: 'pickup', lat: booking.pickup.lat, lng: booking.pickup.lng, label: booking.pickupAddress },
    { id: 'drop', kind: 'drop', lat: booking.drop.lat, lng: booking.drop.lng, label: booking.dropAddress },
  ];
  if (car) markers.push({ id: 'car', kind: carKind, lat: car.lat, lng: car.lng, heading: car.heading, label: booking.vehicle_number });
  return <MapView markers={markers} route={coordsToPoints(booking.coords)} height={height} />;
}
