// Distances on the earth's surface, for comparing places the server reports
// (a booked drop and where the trip really ended).
import type { LatLng } from '@/types/api';

/** The mean earth radius the haversine formula assumes, in metres. */
const EARTH_RADIUS_METRES = 6_371_008.8;

const radians = (degrees: number) => (degrees * Math.PI) / 180;

/** The great-circle distance between two points, in metres (haversine). */
export function haversineMetres(from: LatLng, to: LatLng): number {
  const dLat = radians(to.lat - from.lat);
  const dLng = radians(to.lng - from.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(from.lat)) * Math.cos(radians(to.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_METRES * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A point as text when it has no address: "39.28250, -76.59270". */
export function coordinatesText(point: LatLng) {
  return `${point.lat.toFixed(5)}, ${point.lng.toFixed(5)}`;
}
