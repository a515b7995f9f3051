// What the console's map has drawn, in a few numbers written on its container
// as data attributes: the canvas shows nobody what is on it, and a browser
// test (or a person with the inspector) needs to know the drivers are there,
// that they move, and that offer lines come and go.

/** How often the map writes its summary: a test reads it, nobody watches it. */
export const SUMMARY_MS = 250;

export interface MapSummary {
  /** Drivers drawn. */
  drivers: number;
  /** The mean of the drivers' drawn positions, `lat,lng` to 6 decimals
   * (about 10 cm): it changes whenever one of them moves. Empty with no drivers. */
  driversCentre: string;
  offerLines: number;
  assignedLines: number;
  /** Points of the assigned lines that follow a road route (0 when all are straight). */
  routePoints: number;
  pickups: number;
  /** Pickups drawn as unassigned (lib/booking-state). */
  unassignedPickups: number;
  /** Points of the replayed path, 0 when nothing replays. */
  replayPoints: number;
}

interface Drawn {
  drivers: GeoJSON.FeatureCollection<GeoJSON.Point>;
  lines: GeoJSON.FeatureCollection<GeoJSON.LineString>;
  pickups: GeoJSON.FeatureCollection<GeoJSON.Point>;
  replayPath: readonly unknown[] | null;
}

export function mapSummary({ drivers, lines, pickups, replayPath }: Drawn): MapSummary {
  let lat = 0;
  let lng = 0;
  for (const feature of drivers.features) {
    lng += feature.geometry.coordinates[0];
    lat += feature.geometry.coordinates[1];
  }
  const count = drivers.features.length;
  let offerLines = 0;
  let assignedLines = 0;
  let routePoints = 0;
  for (const feature of lines.features) {
    if (feature.properties?.kind === 'offer') offerLines++;
    else if (feature.properties?.kind === 'assigned') {
      assignedLines++;
      if (feature.properties.routed) routePoints += feature.geometry.coordinates.length;
    }
  }
  let unassignedPickups = 0;
  for (const feature of pickups.features) if (feature.properties?.unassigned === true) unassignedPickups++;
  return {
    drivers: count,
    driversCentre: count === 0 ? '' : `${(lat / count).toFixed(6)},${(lng / count).toFixed(6)}`,
    offerLines,
    assignedLines,
    routePoints,
    pickups: pickups.features.length,
    unassignedPickups,
    replayPoints: replayPath?.length ?? 0,
  };
}

/** The summary as the container's attributes (`data-drivers`, `data-offer-lines`, …). */
export function summaryAttributes(summary: MapSummary): Record<string, string> {
  return {
    'data-drivers': String(summary.drivers),
    'data-drivers-centre': summary.driversCentre,
    'data-offer-lines': String(summary.offerLines),
    'data-assigned-lines': String(summary.assignedLines),
    'data-route-points': String(summary.routePoints),
    'data-pickups': String(summary.pickups),
    'data-unassigned-pickups': String(summary.unassignedPickups),
    'data-replay-points': String(summary.replayPoints),
  };
}
