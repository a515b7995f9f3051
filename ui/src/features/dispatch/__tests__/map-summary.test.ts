import { describe, expect, it } from 'vitest';
import { mapSummary, summaryAttributes } from '../lib/map-summary';

const EMPTY = { type: 'FeatureCollection' as const, features: [] };

function point(lng: number, lat: number, properties: Record<string, unknown> = {}): GeoJSON.Feature<GeoJSON.Point> {
  return { type: 'Feature', properties, geometry: { type: 'Point', coordinates: [lng, lat] } };
}

function line(kind: 'offer' | 'assigned', road: [number, number][] | null = null): GeoJSON.Feature<GeoJSON.LineString> {
  return { type: 'Feature', properties: { kind, routed: road !== null }, geometry: { type: 'LineString', coordinates: road ?? [[0, 0], [1, 1]] } };
}

describe('the map summary', () => {
  it('counts the drivers, lines and pickups drawn, and centres the drivers to the decimetre', () => {
    const summary = mapSummary({
      drivers: { type: 'FeatureCollection', features: [point(-76.58, 39.28), point(-76.6, 39.3)] },
      lines: { type: 'FeatureCollection', features: [line('offer'), line('offer'), line('offer'), line('assigned'), line('assigned', [[0, 0], [0, 1], [1, 1]])] },
      pickups: { type: 'FeatureCollection', features: [point(-76.59, 39.29), point(-76.61, 39.3, { unassigned: true }), point(-76.62, 39.31, { unassigned: false })] },
      replayPath: null,
    });
    expect(summary).toEqual({
      drivers: 2,
      driversCentre: '39.290000,-76.590000',
      offerLines: 3,
      assignedLines: 2,
      routePoints: 3,
      pickups: 3,
      unassignedPickups: 1,
      replayPoints: 0,
    });
  });

  it('moves its centre when one driver moves a metre', () => {
    const before = mapSummary({ drivers: { type: 'FeatureCollection', features: [point(-76.58, 39.28), point(-76.6, 39.3)] }, lines: EMPTY, pickups: EMPTY, replayPath: null });
    const after = mapSummary({ drivers: { type: 'FeatureCollection', features: [point(-76.58, 39.28001), point(-76.6, 39.3)] }, lines: EMPTY, pickups: EMPTY, replayPath: null });
    expect(after.driversCentre).not.toBe(before.driversCentre);
  });

  it('reads as data attributes, with no centre and nothing replaying on an empty map', () => {
    expect(summaryAttributes(mapSummary({ drivers: EMPTY, lines: EMPTY, pickups: EMPTY, replayPath: [[0, 0], [1, 1]] }))).toEqual({
      'data-drivers': '0',
      'data-drivers-centre': '',
      'data-offer-lines': '0',
      'data-assigned-lines': '0',
      'data-route-points': '0',
      'data-pickups': '0',
      'data-unassigned-pickups': '0',
      'data-replay-points': '2',
    });
  });
});
