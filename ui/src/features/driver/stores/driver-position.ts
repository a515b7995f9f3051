import { atom } from 'jotai';
import type { LatLng } from '@/types/api';

export type SharingMode = 'device' | 'simulate';

export interface DriverPosition extends LatLng {
  heading?: number;
  at: number;
}

/** Where this driver is, as last sent to the server. */
export const driverPositionAtom = atom<DriverPosition | null>(null);
export const sharingModeAtom = atom<SharingMode>('simulate');
/** Set when the browser refused or could not give a position. */
export const locationErrorAtom = atom<string | null>(null);

/** What the simulated car is doing: driving a leg, or there. */
export const simulationAtom = atom<{ leg: 'to-pickup' | 'to-drop' | 'wait'; arrived: boolean }>({ leg: 'wait', arrived: false });
