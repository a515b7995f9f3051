import { describe, expect, it } from 'vitest';
import { boundsOf, cityCentre, CITY_ZOOM, DEMO_CITY_CENTRE, frameCentre, frameFor, MAX_FIT_ZOOM, PLACE_ZOOM } from '@/lib/map-frame';

const CITY = { lat: 43.73, lng: 7.42 };

describe('framing a map', () => {
  it('fits the bounds of the places with a margin', () => {
    const frame = frameFor(
      [
        { lat: 39.28, lng: -76.61 },
        { lat: 39.31, lng: -76.57 },
        { lat: 39.29, lng: -76.6 },
      ],
      CITY,
      80,
    );
    expect(frame).toEqual({ kind: 'bounds', bounds: { west: -76.61, south: 39.28, east: -76.57, north: 39.31 }, padding: 80, maxZoom: MAX_FIT_ZOOM });
    expect(frameCentre(frame).lat).toBeCloseTo(39.295);
    expect(frameCentre(frame).lng).toBeCloseTo(-76.59);
  });

  it('centres one place at street level', () => {
    expect(frameFor([{ lat: 39.28, lng: -76.61 }, { lat: 39.28, lng: -76.61 }], CITY)).toEqual({ kind: 'centre', centre: { lat: 39.28, lng: -76.61 }, zoom: PLACE_ZOOM });
  });

  it('opens on the city with nothing to show, never on the whole world', () => {
    expect(frameFor([], CITY)).toEqual({ kind: 'centre', centre: CITY, zoom: CITY_ZOOM });
  });

  it('leaves out a missing fix (0,0, not a number, off the globe) instead of stretching the view to it', () => {
    const city = { lat: 39.29, lng: -76.6 };
    expect(boundsOf([{ lat: 0, lng: 0 }, city, { lat: Number.NaN, lng: 3 }, { lat: 95, lng: 0 }, null, undefined])).toEqual({
      west: -76.6,
      south: 39.29,
      east: -76.6,
      north: 39.29,
    });
    expect(frameFor([{ lat: 0, lng: 0 }], CITY)).toEqual({ kind: 'centre', centre: CITY, zoom: CITY_ZOOM });
  });

  it("takes the city's centre from the basemap's style, else the demo city's", () => {
    expect(cityCentre({ version: 8, center: [7.42, 43.73], sources: {}, layers: [] })).toEqual({ lat: 43.73, lng: 7.42 });
    expect(cityCentre({ version: 8, sources: {}, layers: [] })).toEqual(DEMO_CITY_CENTRE);
    expect(cityCentre('https://tiles.example/style.json')).toEqual(DEMO_CITY_CENTRE);
    expect(cityCentre(undefined)).toEqual(DEMO_CITY_CENTRE);
  });
});
