import 'maplibre-gl/dist/maplibre-gl.css';
import { Box } from '@mui/material';
import { useEffect, useMemo, useRef } from 'react';
import type { StyleSpecification } from 'maplibre-gl';
import MapGL, { Layer, Marker, NavigationControl, Source, type MapRef } from 'react-map-gl/maplibre';
import { cityCentre, DEMO_CITY_CENTRE, frameCentre, frameFor, type Frame } from '@/lib/map-frame';
import { drawGlyphsLeftToRight } from './glyph-direction';
import { MarkerGraphic } from './markers';
import { offlineStyle } from './offline-style';
import { AREA_COLOUR, ATTRIBUTION, DEFAULT_ZOOM, MAP_HEIGHT, ROUTE_COLOUR, TRACK_COLOUR, type MapViewProps } from './types';

drawGlyphsLeftToRight();

/** Shows a frame at once (no animation: the view opens on it). */
function showFrame(map: Pick<MapRef, 'fitBounds' | 'jumpTo'>, frame: Frame) {
  if (frame.kind === 'centre') map.jumpTo({ center: [frame.centre.lng, frame.centre.lat], zoom: frame.zoom });
  else {
    const { west, south, east, north } = frame.bounds;
    map.fitBounds([[west, south], [east, north]], { padding: frame.padding, maxZoom: frame.maxZoom, duration: 0 });
  }
}

type Props = Omit<MapViewProps, 'styleUrl'> & {
  /** A style URL or a style; the offline style when absent. */
  mapStyle?: string | StyleSpecification;
};

export default function MaplibreMap({ markers, route = [], track = [], area = [], height = MAP_HEIGHT, mapStyle, frame }: Props) {
  const mapRef = useRef<MapRef>(null);
  // `data-map-idle`: drawn with every tile loaded; browser tests wait for it
  // before a screenshot. Set on the element, not in state: no re-render per tile.
  const boxRef = useRef<HTMLDivElement>(null);
  const markIdle = (idle: boolean) => boxRef.current?.setAttribute('data-map-idle', String(idle));
  // A framed map opens on its frame; otherwise on the first marker.
  const framing = frame ? frameFor(frame.points, cityCentre(mapStyle)) : null;
  const first = framing ? frameCentre(framing) : (markers[0] ?? route[0] ?? DEMO_CITY_CENTRE);
  // The style is made once: a new object would reload the map.
  const style = useMemo(() => mapStyle ?? offlineStyle(first), [mapStyle]); // eslint-disable-line react-hooks/exhaustive-deps
  // The latest frame, for the load handler and the re-framing effect.
  const framingRef = useRef(framing);
  framingRef.current = framing;
  const routeData = useMemo<GeoJSON.Feature>(
    () => ({
      type: 'Feature',
      properties: {},
      geometry: { type: 'LineString', coordinates: route.map((point) => [point.lng, point.lat]) },
    }),
    [route],
  );
  const trackData = useMemo<GeoJSON.Feature>(
    () => ({
      type: 'Feature',
      properties: {},
      geometry: { type: 'LineString', coordinates: track.map((point) => [point.lng, point.lat]) },
    }),
    [track],
  );
  const areaData = useMemo<GeoJSON.Feature>(
    () => ({
      type: 'Feature',
      properties: {},
      geometry: { type: 'Polygon', coordinates: [area.map((point) => [point.lng, point.lat])] },
    }),
    [area],
  );
  // Fit the view to what matters when the places (not the moving car) change.
  const fixed = markers.filter((marker) => marker.kind === 'pickup' || marker.kind === 'drop' || marker.kind === 'end');
  // The moving car joins the view when it first appears, not on every move.
  const hasCar = markers.some((marker) => marker.kind === 'car' || marker.kind === 'car-busy' || marker.kind === 'me');
  const fitKey = JSON.stringify([fixed.map((marker) => [marker.lat, marker.lng]), route.length, track.length > 1, hasCar]);
  useEffect(() => {
    const map = mapRef.current;
    const points = [...fixed, ...route, ...track, ...markers];
    if (!map || points.length === 0 || framingRef.current) return;
    const lngs = points.map((point) => point.lng);
    const lats = points.map((point) => point.lat);
    const bounds: [[number, number], [number, number]] = [
      [Math.min(...lngs), Math.min(...lats)],
      [Math.max(...lngs), Math.max(...lats)],
    ];
    if (bounds[0][0] === bounds[1][0] && bounds[0][1] === bounds[1][1]) {
      map.flyTo({ center: [bounds[0][0], bounds[0][1]], zoom: 14, duration: 0 });
    } else {
      map.fitBounds(bounds, { padding: 60, duration: 0, maxZoom: 15 });
    }
  }, [fitKey]); // eslint-disable-line react-hooks/exhaustive-deps
  // A framed map frames again when who is in the frame changes.
  useEffect(() => {
    const map = mapRef.current;
    if (map && framingRef.current) showFrame(map, framingRef.current);
  }, [frame?.key]);

  return (
    <Box
      sx={{ height, borderRadius: 2, overflow: 'hidden', position: 'relative' }}
      data-testid="map"
      data-renderer="maplibre"
      data-basemap={typeof style === 'object' && style.name === 'Wayfare OpenStreetMap' ? 'osm' : 'other'}
      data-map-idle="false"
      ref={boxRef}
    >
      <MapGL
        ref={mapRef}
        initialViewState={{ latitude: first.lat, longitude: first.lng, zoom: framing?.kind === 'centre' ? framing.zoom : DEFAULT_ZOOM }}
        mapStyle={style}
        style={{ width: '100%', height: '100%' }}
        attributionControl={{ compact: false, customAttribution: ATTRIBUTION }}
        onIdle={() => markIdle(true)}
        onData={() => markIdle(false)}
        onMoveStart={() => markIdle(false)}
        onLoad={(event) => {
          if (framingRef.current) {
            showFrame(event.target, framingRef.current);
            return;
          }
          const points = [...markers, ...route, ...track];
          if (points.length > 1) {
            const lngs = points.map((point) => point.lng);
            const lats = points.map((point) => point.lat);
            event.target.fitBounds(
              [
                [Math.min(...lngs), Math.min(...lats)],
                [Math.max(...lngs), Math.max(...lats)],
              ],
              { padding: 60, duration: 0, maxZoom: 15 },
            );
          }
        }}
      >
        <NavigationControl position="top-right" showCompass={false} />
        {area.length > 2 && (
          <Source id="area" type="geojson" data={areaData}>
            <Layer id="area-fill" type="fill" paint={{ 'fill-color': AREA_COLOUR, 'fill-opacity': 0.25 }} />
            <Layer id="area-line" type="line" paint={{ 'line-color': AREA_COLOUR, 'line-width': 2 }} />
          </Source>
        )}
        {route.length > 1 && (
          <Source id="route" type="geojson" data={routeData}>
            <Layer id="route-casing" type="line" paint={{ 'line-color': '#ffffff', 'line-width': 9 }} layout={{ 'line-cap': 'round', 'line-join': 'round' }} />
            <Layer id="route-line" type="line" paint={{ 'line-color': ROUTE_COLOUR, 'line-width': 5 }} layout={{ 'line-cap': 'round', 'line-join': 'round' }} />
          </Source>
        )}
        {track.length > 1 && (
          <Source id="track" type="geojson" data={trackData}>
            <Layer id="track-line" type="line" paint={{ 'line-color': TRACK_COLOUR, 'line-width': 3, 'line-dasharray': [2, 1.5] }} layout={{ 'line-join': 'round' }} />
          </Source>
        )}
        {markers.map((marker) => (
          <Marker
            key={marker.id}
            latitude={marker.lat}
            longitude={marker.lng}
            anchor={marker.kind === 'car' || marker.kind === 'car-busy' || marker.kind === 'me' ? 'center' : 'bottom'}
          >
            <div
              data-testid={`map-marker-${marker.kind}`}
              data-lat={marker.lat.toFixed(6)}
              data-lng={marker.lng.toFixed(6)}
              data-lost={marker.lost ? 'true' : undefined}
              title={marker.label}
            >
              <MarkerGraphic kind={marker.kind} heading={marker.heading} lost={marker.lost} />
            </div>
          </Marker>
        ))}
      </MapGL>
    </Box>
  );
}
