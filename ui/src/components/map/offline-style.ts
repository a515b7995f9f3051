import type { StyleSpecification } from 'maplibre-gl';

/** A plain style that needs no tiles: a background and a faint grid; the
 * markers and the route are drawn on top by the map view. */
export function offlineStyle(centre: { lat: number; lng: number }): StyleSpecification {
  return {
    version: 8,
    name: 'Wayfare offline',
    sources: {
      grid: { type: 'geojson', data: gridLines(centre) },
    },
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': '#e9eee9' } },
      {
        id: 'grid',
        type: 'line',
        source: 'grid',
        paint: { 'line-color': '#d3dbd4', 'line-width': 1 },
      },
    ],
  };
}

/** Lines every 0.01° for 2° around the centre: a hint of scale and motion,
 * decoration rather than data. */
function gridLines(centre: { lat: number; lng: number }): GeoJSON.FeatureCollection {
  const features: GeoJSON.Feature[] = [];
  for (let i = -200; i <= 200; i++) {
    const lat = centre.lat + i * 0.01;
    const lng = centre.lng + i * 0.01;
    features.push({
      type: 'Feature',
      properties: {},
      geometry: { type: 'LineString', coordinates: [[centre.lng - 2, lat], [centre.lng + 2, lat]] },
    });
    features.push({
      type: 'Feature',
      properties: {},
      geometry: { type: 'LineString', coordinates: [[lng, centre.lat - 2], [lng, centre.lat + 2]] },
    });
  }
  return { type: 'FeatureCollection', features };
}
