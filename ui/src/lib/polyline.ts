import type { Coord, LatLng } from '@/types/api';

/** Google's encoded polyline at precision 5, as the server's maps provider writes it. */
export function decodePolyline(encoded: string): LatLng[] {
  const points: LatLng[] = [];
  let index = 0;
  let lat = 0;
  let lng = 0;
  while (index < encoded.length) {
    for (const axis of [0, 1]) {
      let result = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = encoded.charCodeAt(index++) - 63;
        result |= (byte & 0x1f) << shift;
        shift += 5;
      } while (byte >= 0x20 && index < encoded.length);
      const delta = result & 1 ? ~(result >> 1) : result >> 1;
      if (axis === 0) lat += delta;
      else lng += delta;
    }
    points.push({ lat: lat / 1e5, lng: lng / 1e5 });
  }
  return points;
}

export function coordsToPoints(coords: Coord[] | undefined): LatLng[] {
  return (coords ?? []).map((coord) => ({ lat: coord.latitude, lng: coord.longitude }));
}

const EARTH_RADIUS_M = 6_371_000;

export function distanceMeters(a: LatLng, b: LatLng) {
  const toRad = (degrees: number) => (degrees * Math.PI) / 180;
  const dLat = toRad(b.lat - a.lat);
  const dLng = toRad(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(a.lat)) * Math.cos(toRad(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The point `meters` along a path (the last point past its end). */
export function pointAlong(path: LatLng[], meters: number): { point: LatLng; heading: number; done: boolean } {
  if (path.length === 0) return { point: { lat: 0, lng: 0 }, heading: 0, done: true };
  let remaining = Math.max(0, meters);
  for (let i = 1; i < path.length; i++) {
    const from = path[i - 1];
    const to = path[i];
    const length = distanceMeters(from, to);
    if (remaining <= length && length > 0) {
      const share = remaining / length;
      return {
        point: { lat: from.lat + (to.lat - from.lat) * share, lng: from.lng + (to.lng - from.lng) * share },
        heading: bearing(from, to),
        done: false,
      };
    }
    remaining -= length;
  }
  const last = path[path.length - 1];
  const before = path[path.length - 2] ?? last;
  return { point: last, heading: bearing(before, last), done: true };
}

export function bearing(a: LatLng, b: LatLng) {
  const toRad = (degrees: number) => (degrees * Math.PI) / 180;
  const y = Math.sin(toRad(b.lng - a.lng)) * Math.cos(toRad(b.lat));
  const x =
    Math.cos(toRad(a.lat)) * Math.sin(toRad(b.lat)) -
    Math.sin(toRad(a.lat)) * Math.cos(toRad(b.lat)) * Math.cos(toRad(b.lng - a.lng));
  return ((Math.atan2(y, x) * 180) / Math.PI + 360) % 360;
}
