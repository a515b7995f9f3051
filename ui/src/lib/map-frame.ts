// Where a map opens: on the places that matter, fitted with a margin, or —
// with nothing to show — on the platform's city. Never on the whole world
// (an empty list or a stray 0,0 fix would do that) and never on the
// viewer's own position: a panel screen does not ask the browser for it.
import type { LatLng } from '@/types/api';

/** The demo city's centre (Baltimore): the centre of last resort, when the
 * server has no basemap of its own to say where its city is. */
export const DEMO_CITY_CENTRE: LatLng = { lat: 39.286, lng: -76.58 };

/** A city seen whole (spec §9: the map's default zoom). */
export const CITY_ZOOM = 10;
/** One place on its own: its streets. */
export const PLACE_ZOOM = 14;
/** Fitting never zooms in closer than this, however near the points are. */
export const MAX_FIT_ZOOM = 15;

export interface Bounds {
  west: number;
  south: number;
  east: number;
  north: number;
}

export type Frame =
  | { kind: 'bounds'; bounds: Bounds; padding: number; maxZoom: number }
  | { kind: 'centre'; centre: LatLng; zoom: number };

/** A point a map can be framed on: finite, on the globe, and not the 0,0 a
 * missing fix often becomes. */
export function isPlace(point: LatLng | null | undefined): point is LatLng {
  if (!point || !Number.isFinite(point.lat) || !Number.isFinite(point.lng)) return false;
  if (Math.abs(point.lat) > 90 || Math.abs(point.lng) > 180) return false;
  return !(point.lat === 0 && point.lng === 0);
}

/** The smallest box holding every place among `points`; null when there is none. */
export function boundsOf(points: readonly (LatLng | null | undefined)[]): Bounds | null {
  let bounds: Bounds | null = null;
  for (const point of points) {
    if (!isPlace(point)) continue;
    if (!bounds) bounds = { west: point.lng, south: point.lat, east: point.lng, north: point.lat };
    else {
      bounds.west = Math.min(bounds.west, point.lng);
      bounds.east = Math.max(bounds.east, point.lng);
      bounds.south = Math.min(bounds.south, point.lat);
      bounds.north = Math.max(bounds.north, point.lat);
    }
  }
  return bounds;
}

/**
 * How to frame `points`: their bounds with `padding` pixels around them; one
 * place (or several on the same spot) centred at street level; none, the
 * `fallback` centre (the city's) at city level.
 */
export function frameFor(points: readonly (LatLng | null | undefined)[], fallback: LatLng, padding = 60): Frame {
  const bounds = boundsOf(points);
  if (!bounds) return { kind: 'centre', centre: fallback, zoom: CITY_ZOOM };
  if (bounds.west === bounds.east && bounds.south === bounds.north) {
    return { kind: 'centre', centre: { lat: bounds.south, lng: bounds.west }, zoom: PLACE_ZOOM };
  }
  return { kind: 'bounds', bounds, padding, maxZoom: MAX_FIT_ZOOM };
}

/** The frame's centre, for a map's first view before it can fit bounds. */
export function frameCentre(frame: Frame): LatLng {
  if (frame.kind === 'centre') return frame.centre;
  const { west, south, east, north } = frame.bounds;
  return { lat: (south + north) / 2, lng: (west + east) / 2 };
}

/** The city a map style is of: its `center` ([lng, lat], as the server's
 * basemap gives the centre of its extract), else the demo city. */
export function cityCentre(style: unknown): LatLng {
  const centre = style && typeof style === 'object' ? (style as { center?: unknown }).center : undefined;
  if (Array.isArray(centre) && centre.length >= 2) {
    const point = { lng: Number(centre[0]), lat: Number(centre[1]) };
    if (isPlace(point)) return point;
  }
  return DEMO_CITY_CENTRE;
}
