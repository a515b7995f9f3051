// The console's colours, shared by the map's layers and the legend.
import type { WaitBucket } from './bookings';
import type { DriverState } from './types';

export const DRIVER_COLOURS: Record<DriverState, string> = {
  available: '#2e7d32',
  offered: '#f9a825',
  to_pickup: '#1565c0',
  on_trip: '#6a1b9a',
  busy: '#757575',
};

/** A waiting pickup by how long it waited; a served one by its stage. */
export const WAIT_COLOURS: Record<Exclude<WaitBucket, 'served'>, string> = {
  fresh: '#00897b',
  over_2: '#ef6c00',
  over_5: '#c62828',
};

/** A driver with no fix for 30 s, whatever they were doing. */
export const STALE_DRIVER_COLOUR = '#bdbdbd';

/** The ring around an unassigned pickup (and its rows' tint in the lists). */
export const UNASSIGNED_COLOUR = '#ad1457';

export const PICKUP_GOING_COLOUR = '#1565c0';
export const PICKUP_ON_TRIP_COLOUR = '#6a1b9a';
export const OFFER_LINE_COLOUR = '#f9a825';
export const ASSIGNED_LINE_COLOUR = '#1565c0';
export const HEX_SHORT_COLOUR = '#d32f2f';
export const HEX_SUPPLY_COLOUR = '#2e7d32';
export const HEX_DEMAND_COLOUR = '#ffb300';
export const REPLAY_COLOUR = '#0b5c56';
