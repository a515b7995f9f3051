// Where the phone is, for an SOS: the browser's position if it answers
// within a few seconds, else the fallback the caller knows (the driver's
// last position, the trip's pickup). An SOS never waits on a GPS.
import type { LatLng } from '@/types/api';

export const POSITION_TIMEOUT_MS = 4000;

export interface SosPosition extends LatLng {
  /** True when the browser gave no position and the fallback was used. */
  approximate: boolean;
}

export function sosPosition(fallback: LatLng, timeoutMs = POSITION_TIMEOUT_MS): Promise<SosPosition> {
  const approximate = { lat: fallback.lat, lng: fallback.lng, approximate: true };
  const geolocation = typeof navigator === 'undefined' ? undefined : navigator.geolocation;
  if (!geolocation) return Promise.resolve(approximate);
  return new Promise((resolve) => {
    // getCurrentPosition's own timeout does not cover a permission prompt
    // left unanswered; this one does.
    const timer = setTimeout(() => resolve(approximate), timeoutMs);
    geolocation.getCurrentPosition(
      (found) => {
        clearTimeout(timer);
        resolve({ lat: found.coords.latitude, lng: found.coords.longitude, approximate: false });
      },
      () => {
        clearTimeout(timer);
        resolve(approximate);
      },
      { enableHighAccuracy: true, timeout: timeoutMs, maximumAge: 30_000 },
    );
  });
}
