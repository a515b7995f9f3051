import { atom } from 'jotai';
import { atomWithStorage } from 'jotai/utils';
import type { LatLng } from '@/types/api';

/** Where positions come from: the device, or (on the demo city only) a
 * simulated drive along the route. */
export type SharingMode = 'device' | 'simulate';

export interface DriverPosition extends LatLng {
  heading?: number;
  /** When the fix was taken (ms). */
  at: number;
  /** Metres, as the device estimates it. */
  accuracy?: number;
  speed?: number;
}

/** Where this driver is, as last taken from the device (or the simulation). */
export const driverPositionAtom = atom<DriverPosition | null>(null);

/** Kept across reloads: a driver who chose to simulate on the demo city is
 * not switched back mid-trip, and a real driver never starts simulating. */
export const sharingModeAtom = atomWithStorage<SharingMode>('wayfare.driver.positions', 'device', undefined, { getOnInit: true });

/**
 * What the driver's device says of its position:
 * - `waiting`: no fix yet;
 * - `ok`: a fix good enough for dispatch;
 * - `weak`: fixes come, but vaguer than 100 m (not used);
 * - `stale`: no usable fix for 30 s;
 * - `denied`: the browser refused the position;
 * - `unsupported`: the browser has no geolocation.
 */
export type FixState = 'waiting' | 'ok' | 'weak' | 'stale' | 'denied' | 'unsupported';

export interface FixStatus {
  state: FixState;
  /** The last fix's accuracy, metres. */
  accuracy?: number;
  /** When the last usable fix was taken (ms). */
  lastAt?: number;
}

export const fixStatusAtom = atom<FixStatus>({ state: 'waiting' });

/** Positions taken but not yet acknowledged by the server. */
export const unsentPositionsAtom = atom(0);

/** What the simulated car is doing: driving a leg, or there. */
export const simulationAtom = atom<{ leg: 'to-pickup' | 'to-drop' | 'wait'; arrived: boolean }>({ leg: 'wait', arrived: false });
