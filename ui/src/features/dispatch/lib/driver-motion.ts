// Drivers glide between the `drivers` feed's messages (about one a second):
// each message starts a leg from where a driver is drawn now to where it was
// reported, and the map asks where everyone is at each frame. Plain data and
// arithmetic, so it is tested without a map and costs little per frame.
import type { DriverState, FeedDriver } from './types';

/** How long a driver takes to glide to a reported position: the feed's period. */
export const MOTION_MS = 1000;

/** A jump longer than this (in degrees, about 5 km) is a teleport, not a drive: drawn at once. */
const TELEPORT_DEGREES = 0.05;

export interface DriverTrack {
  id: string;
  carType: string | null;
  state: DriverState;
  /** No usable fix for 30 s. */
  stale: boolean;
  fromLat: number;
  fromLng: number;
  fromHeading: number | null;
  toLat: number;
  toLng: number;
  toHeading: number | null;
  /** When the current leg began (ms). */
  start: number;
}

export interface DriverPoint {
  lat: number;
  lng: number;
  heading: number | null;
}

/** A server without the console's states still says whether a driver is free. */
export function stateOf(driver: FeedDriver): DriverState {
  return driver.state ?? (driver.available ? 'available' : 'busy');
}

const clamp01 = (value: number) => (value < 0 ? 0 : value > 1 ? 1 : value);

/** Degrees from north, clockwise, of the way from one point to another (flat
 * earth: enough for a car's few metres). */
export function bearing(fromLat: number, fromLng: number, toLat: number, toLng: number): number {
  const dx = (toLng - fromLng) * Math.cos((((fromLat + toLat) / 2) * Math.PI) / 180);
  const dy = toLat - fromLat;
  const degrees = (Math.atan2(dx, dy) * 180) / Math.PI;
  return (degrees + 360) % 360;
}

/** The heading a fraction of the way between two, turning the short way round. */
export function turn(from: number | null, to: number | null, fraction: number): number | null {
  if (from === null) return to;
  if (to === null) return from;
  const delta = ((to - from + 540) % 360) - 180;
  return (from + delta * clamp01(fraction) + 360) % 360;
}

/** Where a driver is drawn at `now`. */
export function positionAt(track: DriverTrack, now: number): DriverPoint {
  const fraction = clamp01((now - track.start) / MOTION_MS);
  return {
    lat: track.fromLat + (track.toLat - track.fromLat) * fraction,
    lng: track.fromLng + (track.toLng - track.fromLng) * fraction,
    heading: turn(track.fromHeading, track.toHeading, fraction),
  };
}

/**
 * Applies one `drivers` message to the tracks, in place: a listed driver
 * starts a leg from where it is drawn now; a new one appears where reported;
 * a driver the message leaves out went offline and is removed. Returns
 * whether the set of drivers changed (the map then rebuilds its features
 * rather than only moving them).
 */
export function applyDriversFeed(tracks: Map<string, DriverTrack>, feed: readonly FeedDriver[], now: number): boolean {
  let membershipChanged = false;
  const seen = new Set<string>();
  for (const driver of feed) {
    if (!Number.isFinite(driver.lat) || !Number.isFinite(driver.lng)) continue;
    seen.add(driver.id);
    const reportedHeading = typeof driver.heading === 'number' && Number.isFinite(driver.heading) ? driver.heading : null;
    const track = tracks.get(driver.id);
    if (!track) {
      membershipChanged = true;
      tracks.set(driver.id, {
        id: driver.id,
        carType: driver.carType,
        state: stateOf(driver),
        stale: driver.stale === true,
        fromLat: driver.lat,
        fromLng: driver.lng,
        fromHeading: reportedHeading,
        toLat: driver.lat,
        toLng: driver.lng,
        toHeading: reportedHeading,
        start: now,
      });
      continue;
    }
    const here = positionAt(track, now);
    const far = Math.abs(driver.lat - here.lat) > TELEPORT_DEGREES || Math.abs(driver.lng - here.lng) > TELEPORT_DEGREES;
    const moved = driver.lat !== here.lat || driver.lng !== here.lng;
    // No heading from the device: the way it moved, else the one it had.
    const heading = reportedHeading ?? (moved ? bearing(here.lat, here.lng, driver.lat, driver.lng) : here.heading);
    track.carType = driver.carType;
    track.state = stateOf(driver);
    track.stale = driver.stale === true;
    track.fromLat = far ? driver.lat : here.lat;
    track.fromLng = far ? driver.lng : here.lng;
    track.fromHeading = far ? heading : here.heading;
    track.toLat = driver.lat;
    track.toLng = driver.lng;
    track.toHeading = heading;
    track.start = now;
  }
  for (const id of tracks.keys()) {
    if (!seen.has(id)) {
      tracks.delete(id);
      membershipChanged = true;
    }
  }
  return membershipChanged;
}

/** True while some driver is still gliding. */
export function inMotion(lastFeedAt: number, now: number) {
  return now - lastFeedAt < MOTION_MS;
}
