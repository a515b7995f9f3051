import type { LatLng } from '@/types/api';

/** `car-busy`: a driver on a trip, drawn like a car but greyed; `end`: where
 * a trip really ended, when that is not its booked drop. */
export type MarkerKind = 'pickup' | 'drop' | 'end' | 'car' | 'car-busy' | 'me';

export interface MapMarker extends LatLng {
  id: string;
  kind: MarkerKind;
  label?: string;
  /** Degrees clockwise from north, for the car. */
  heading?: number;
  /** No fix for a while: drawn faded, where it was last seen. */
  lost?: boolean;
}

/** A height, or one per breakpoint (MUI's sx), e.g. `{ xs: 300, md: 480 }`. */
export type MapHeight = number | string | Partial<Record<'xs' | 'sm' | 'md' | 'lg' | 'xl', number | string>>;

export interface MapViewProps {
  markers: MapMarker[];
  /** The route line, pickup to drop. */
  route?: LatLng[];
  /** The path the driver really drove (the recorded tracking points), drawn over the route. */
  track?: LatLng[];
  /** An area drawn as a shaded outline (a closed ring): where riders are expected. */
  area?: LatLng[];
  height?: MapHeight;
  /** A MapLibre style URL; the offline style when absent. */
  styleUrl?: string;
  /**
   * What the view is framed on, instead of every marker and the route:
   * these places fitted with a margin, or with none the city's centre (the
   * basemap's, else the demo city's; lib/map-frame). The view is framed
   * again only when `key` changes (who is in it), not as the markers move.
   */
  frame?: { points: LatLng[]; key: string };
}

export const DEFAULT_ZOOM = 10;
export const MAP_HEIGHT = 480;
/** Spec §9: the car marker is 35 by 25. */
export const CAR_MARKER_SIZE = { width: 35, height: 25 };
export const ATTRIBUTION = '© OpenStreetMap contributors';
export const ROUTE_COLOUR = '#0b5c56';
export const TRACK_COLOUR = '#7b1fa2';
export const AREA_COLOUR = '#ed6c02';
