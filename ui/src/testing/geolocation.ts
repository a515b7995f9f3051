// A browser position the tests control: watchers get each fix (or the
// refusal) as the browser would hand them over.
import { act } from '@testing-library/react';
import { vi } from 'vitest';

type Watcher = { ok: PositionCallback; fail?: PositionErrorCallback | null };

const ERROR_CODES = { PERMISSION_DENIED: 1, POSITION_UNAVAILABLE: 2, TIMEOUT: 3 } as const;

export function fakeGeolocation() {
  const watchers = new Map<number, Watcher>();
  let next = 1;
  let last: GeolocationPosition | null = null;
  const geolocation = {
    watchPosition: vi.fn((ok: PositionCallback, fail?: PositionErrorCallback | null) => {
      const id = next++;
      watchers.set(id, { ok, fail });
      return id;
    }),
    clearWatch: vi.fn((id: number) => watchers.delete(id)),
    getCurrentPosition: vi.fn((ok: PositionCallback) => {
      if (last) ok(last);
    }),
  };
  Object.defineProperty(navigator, 'geolocation', { value: geolocation, configurable: true });
  return {
    geolocation,
    /** Hands a fix to every watcher. */
    fix(lat: number, lng: number, { accuracy = 8, at = Date.now() }: { accuracy?: number; at?: number } = {}) {
      last = {
        coords: { latitude: lat, longitude: lng, accuracy, heading: null, speed: null, altitude: null, altitudeAccuracy: null },
        timestamp: at,
      } as unknown as GeolocationPosition;
      act(() => {
        for (const watcher of watchers.values()) watcher.ok(last as GeolocationPosition);
      });
    },
    /** The browser refuses the position. */
    deny() {
      act(() => {
        for (const watcher of watchers.values()) {
          watcher.fail?.({ code: ERROR_CODES.PERMISSION_DENIED, message: 'User denied Geolocation', ...ERROR_CODES } as GeolocationPositionError);
        }
      });
    },
    restore() {
      Reflect.deleteProperty(navigator, 'geolocation');
    },
  };
}
