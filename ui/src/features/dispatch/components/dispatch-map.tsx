// The console's map: MapLibre GL driven imperatively from the console store.
// Every driver is one feature of one GeoJSON source (no DOM marker per
// driver); a frame loop moves them between feed messages and writes the
// source with setData, and React renders this component once.
import 'maplibre-gl/dist/maplibre-gl.css';
import { Box } from '@mui/material';
import maplibregl, { type GeoJSONSource, type MapLayerMouseEvent, type StyleSpecification } from 'maplibre-gl';
import { useEffect, useRef } from 'react';
import { drawGlyphsLeftToRight } from '@/components/map/glyph-direction';
import { offlineStyle } from '@/components/map/offline-style';
import { ATTRIBUTION } from '@/components/map/types';
import { cityCentre, frameFor, type Frame } from '@/lib/map-frame';
import type { LatLng } from '@/types/api';
import { ARROW_SIZE, arrowPixels } from '../lib/arrow-image';
import {
  ASSIGNED_LINE_COLOUR,
  DRIVER_COLOURS,
  STALE_DRIVER_COLOUR,
  HEX_DEMAND_COLOUR,
  HEX_SHORT_COLOUR,
  HEX_SUPPLY_COLOUR,
  OFFER_LINE_COLOUR,
  PICKUP_GOING_COLOUR,
  PICKUP_ON_TRIP_COLOUR,
  REPLAY_COLOUR,
  UNASSIGNED_COLOUR,
  WAIT_COLOURS,
} from '../lib/colours';
import { DRAW_MEASURE, measureSince } from '../lib/feed-measure';
import { overviewKey, overviewPoints } from '../lib/framing';
import { mapSummary, SUMMARY_MS, summaryAttributes } from '../lib/map-summary';
import type { ConsoleStore, ReplayPicture, Topic } from '../stores/console-store';

drawGlyphsLeftToRight();

/** Labels in the browser's fonts (the basemap names no glyphs). */
const FONTS = ['Noto Sans', 'DejaVu Sans', 'Arial', 'sans-serif'];
/** A frame of driver movement at most this often: 30 a second is smooth, and
 * leaves the worker time to re-tile 10,000 points. */
const FRAME_MS = 33;
const EMPTY: GeoJSON.FeatureCollection = { type: 'FeatureCollection', features: [] };

/** What the map frames when a booking is chosen (lib/framing): its pickup
 * and its driver, fitted with a margin. */
export interface FocusTarget {
  points: LatLng[];
  /** Changes when the same places are asked for again. */
  key: number;
}

/** Margin around a framed booking, in pixels: room for the markers and the drawer's edge. */
const FOCUS_PADDING = 80;
/** Margin around the whole picture. */
const OVERVIEW_PADDING = 40;

function showFrame(map: maplibregl.Map, frame: Frame, duration: number) {
  if (frame.kind === 'centre') {
    map.flyTo({ center: [frame.centre.lng, frame.centre.lat], zoom: Math.max(map.getZoom(), frame.zoom), duration });
  } else {
    const { west, south, east, north } = frame.bounds;
    map.fitBounds([[west, south], [east, north]], { padding: frame.padding, maxZoom: frame.maxZoom, duration });
  }
}

export interface DispatchMapProps {
  store: ConsoleStore;
  mapStyle?: string | StyleSpecification;
  height: number | string | Record<string, number | string>;
  showHexes: boolean;
  focusedBooking: string | null;
  focusTarget: FocusTarget | null;
  onBooking: (id: string) => void;
  onDriver: (id: string) => void;
  /** The offer countdown's text, in the viewer's language. */
  countdown: (seconds: number) => string;
}

function source(map: maplibregl.Map, id: string) {
  return map.getSource(id) as GeoJSONSource | undefined;
}

function addLayers(map: maplibregl.Map) {
  map.addImage('wf-arrow', arrowPixels(), { pixelRatio: 2 });
  for (const id of ['wf-hexes', 'wf-replay', 'wf-lines', 'wf-drivers', 'wf-pickups', 'wf-hover', 'wf-replay-car']) {
    map.addSource(id, { type: 'geojson', data: EMPTY });
  }
  map.addLayer({
    id: 'wf-hexes-fill',
    type: 'fill',
    source: 'wf-hexes',
    paint: {
      'fill-color': ['case', ['get', 'short'], HEX_SHORT_COLOUR, ['>', ['get', 'demand'], ['get', 'available']], HEX_DEMAND_COLOUR, HEX_SUPPLY_COLOUR],
      'fill-opacity': ['case', ['get', 'short'], 0.4, 0.18],
    },
  });
  map.addLayer({
    id: 'wf-hexes-line',
    type: 'line',
    source: 'wf-hexes',
    paint: { 'line-color': ['case', ['get', 'short'], HEX_SHORT_COLOUR, '#607d8b'], 'line-width': ['case', ['get', 'short'], 2, 0.5], 'line-opacity': 0.7 },
  });
  map.addLayer({ id: 'wf-replay-line', type: 'line', source: 'wf-replay', paint: { 'line-color': REPLAY_COLOUR, 'line-width': 4 }, layout: { 'line-cap': 'round', 'line-join': 'round' } });
  map.addLayer({
    id: 'wf-lines-offer',
    type: 'line',
    source: 'wf-lines',
    filter: ['==', ['get', 'kind'], 'offer'],
    paint: { 'line-color': OFFER_LINE_COLOUR, 'line-width': 2, 'line-dasharray': [2, 1.5] },
  });
  map.addLayer({
    id: 'wf-lines-assigned',
    type: 'line',
    source: 'wf-lines',
    filter: ['==', ['get', 'kind'], 'assigned'],
    // A road route has corners: round joins keep them clean.
    layout: { 'line-join': 'round', 'line-cap': 'round' },
    paint: { 'line-color': ASSIGNED_LINE_COLOUR, 'line-width': ['case', ['get', 'routed'], 4, 2.5] },
  });
  map.addLayer({
    id: 'wf-lines-label',
    type: 'symbol',
    source: 'wf-lines',
    filter: ['!=', ['get', 'label'], ''],
    layout: { 'symbol-placement': 'line-center', 'text-field': ['get', 'label'], 'text-font': FONTS, 'text-size': 12, 'text-allow-overlap': true },
    paint: { 'text-color': '#3e2723', 'text-halo-color': '#ffffff', 'text-halo-width': 1.5 },
  });
  map.addLayer({
    id: 'wf-drivers',
    type: 'circle',
    source: 'wf-drivers',
    paint: {
      'circle-radius': ['interpolate', ['linear'], ['zoom'], 8, 2.5, 12, 5, 16, 8],
      'circle-color': [
        'case',
        ['==', ['get', 'stale'], true],
        STALE_DRIVER_COLOUR,
        ['match', ['get', 'state'], ...Object.entries(DRIVER_COLOURS).flat(), DRIVER_COLOURS.busy],
      ] as unknown as string,
      'circle-opacity': ['case', ['==', ['get', 'stale'], true], 0.55, 1],
      'circle-stroke-color': '#ffffff',
      'circle-stroke-width': ['interpolate', ['linear'], ['zoom'], 8, 0, 12, 1],
    },
  });
  map.addLayer({
    id: 'wf-drivers-heading',
    type: 'symbol',
    source: 'wf-drivers',
    minzoom: 12,
    filter: ['==', ['get', 'hasHeading'], true],
    layout: {
      'icon-image': 'wf-arrow',
      'icon-size': ['interpolate', ['linear'], ['zoom'], 12, 0.8, 16, 1.3] as unknown as number,
      'icon-rotate': ['get', 'heading'],
      'icon-rotation-alignment': 'map',
      'icon-allow-overlap': true,
      'icon-ignore-placement': true,
    },
  });
  map.addLayer({
    id: 'wf-pickups',
    type: 'circle',
    source: 'wf-pickups',
    paint: {
      // An unassigned pickup is bigger, ringed in its own colour (lib/booking-state).
      'circle-radius': ['interpolate', ['linear'], ['zoom'], 8, ['case', ['==', ['get', 'unassigned'], true], 6, 4], 14, ['case', ['==', ['get', 'unassigned'], true], 11, 8]],
      'circle-color': [
        'match',
        ['get', 'wait'],
        'fresh', WAIT_COLOURS.fresh,
        'over_2', WAIT_COLOURS.over_2,
        'over_5', WAIT_COLOURS.over_5,
        ['match', ['get', 'status'], ['ACCEPTED', 'ARRIVED'], PICKUP_GOING_COLOUR, PICKUP_ON_TRIP_COLOUR],
      ],
      'circle-stroke-color': ['case', ['==', ['get', 'unassigned'], true], UNASSIGNED_COLOUR, '#ffffff'],
      'circle-stroke-width': ['case', ['==', ['get', 'unassigned'], true], 4, 2],
    },
  });
  map.addLayer({
    id: 'wf-pickups-focused',
    type: 'circle',
    source: 'wf-pickups',
    filter: ['==', ['get', 'id'], ''],
    paint: { 'circle-radius': 14, 'circle-color': 'rgba(0,0,0,0)', 'circle-stroke-color': '#212121', 'circle-stroke-width': 3 },
  });
  map.addLayer({ id: 'wf-hover-line', type: 'line', source: 'wf-hover', filter: ['==', ['geometry-type'], 'LineString'], paint: { 'line-color': '#c62828', 'line-width': 2, 'line-dasharray': [1, 1] } });
  map.addLayer({
    id: 'wf-hover-drop',
    type: 'circle',
    source: 'wf-hover',
    filter: ['==', ['geometry-type'], 'Point'],
    paint: { 'circle-radius': 7, 'circle-color': '#c62828', 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 },
  });
  map.addLayer({ id: 'wf-replay-car', type: 'circle', source: 'wf-replay-car', paint: { 'circle-radius': 9, 'circle-color': REPLAY_COLOUR, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 } });
  map.addLayer({
    id: 'wf-replay-car-heading',
    type: 'symbol',
    source: 'wf-replay-car',
    filter: ['==', ['get', 'hasHeading'], true],
    layout: { 'icon-image': 'wf-arrow', 'icon-rotate': ['get', 'heading'], 'icon-rotation-alignment': 'map', 'icon-allow-overlap': true, 'icon-ignore-placement': true },
  });
}

function replayData(replay: ReplayPicture | null) {
  const path: GeoJSON.FeatureCollection =
    replay && replay.path.length > 1
      ? { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: replay.path } }] }
      : EMPTY;
  const car: GeoJSON.FeatureCollection = replay?.car
    ? {
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            properties: { heading: replay.car.heading ?? 0, hasHeading: replay.car.heading !== null },
            geometry: { type: 'Point', coordinates: [replay.car.lng, replay.car.lat] },
          },
        ],
      }
    : EMPTY;
  return { path, car };
}

export default function DispatchMap(props: DispatchMapProps) {
  const { store, mapStyle, height, showHexes, focusedBooking, focusTarget } = props;
  const container = useRef<HTMLDivElement>(null);
  const mapRef = useRef<maplibregl.Map | null>(null);
  const readyRef = useRef(false);
  // The latest callbacks, read by the map's handlers (the map is made once).
  const latest = useRef(props);
  latest.current = props;
  // Stops the overview framing: a booking was chosen (set by the map's effect).
  const takeView = useRef<(() => void) | null>(null);

  useEffect(() => {
    if (!container.current) return;
    const box = container.current;
    // With nothing to frame yet, the city: the basemap's centre, else the demo city's.
    const city = cityCentre(mapStyle);
    const style = mapStyle ?? offlineStyle(city);
    const first = store.tracks.values().next().value;
    const map = new maplibregl.Map({
      container: container.current,
      style,
      center: first ? [first.toLng, first.toLat] : [city.lng, city.lat],
      zoom: 11,
      attributionControl: { compact: false, customAttribution: ATTRIBUTION },
    });
    mapRef.current = map;
    map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
    const dirty = { drivers: true, bookings: true, lines: true, hexes: true, replay: true };
    // The view frames every driver and pickup when the first of them are
    // known (and again if one kind appears later), until someone moves the
    // map or chooses a booking: then the view is theirs.
    let framedKey = overviewKey(0, 0);
    let viewTaken = false;
    const frameOverview = () => {
      const key = overviewKey(store.tracks.size, store.bookings.size);
      if (viewTaken || key === framedKey) return;
      framedKey = key;
      const tracks = [...store.tracks.values()].map((track) => ({ lat: track.toLat, lng: track.toLng }));
      showFrame(map, frameFor(overviewPoints(tracks, store.bookings.values()), city, OVERVIEW_PADDING), 0);
    };
    map.on('dragstart', () => {
      viewTaken = true;
    });
    map.on('zoomstart', (event) => {
      // A zoom of ours (fitting) has no original event; the viewer's has.
      if ((event as { originalEvent?: unknown }).originalEvent) viewTaken = true;
    });
    takeView.current = () => {
      viewTaken = true;
    };
    let lastFrame = 0;
    let frame = 0;
    // The last `drivers` message a frame has drawn (its first frame is measured).
    let drawnFeed = store.feedsReceived;
    // What was drawn last, summed up on the container now and then (lib/map-summary).
    const drawn = { drivers: EMPTY as GeoJSON.FeatureCollection<GeoJSON.Point>, lines: EMPTY as GeoJSON.FeatureCollection<GeoJSON.LineString>, pickups: EMPTY as GeoJSON.FeatureCollection<GeoJSON.Point> };
    let lastSummary = Number.NEGATIVE_INFINITY;

    const drawPickups = () => {
      drawn.pickups = store.pickupsGeoJson();
      source(map, 'wf-pickups')?.setData(drawn.pickups);
    };
    const drawLines = () => {
      drawn.lines = store.linesGeoJson(latest.current.countdown);
      source(map, 'wf-lines')?.setData(drawn.lines);
    };
    let replayPath: ReplayPicture['path'] | null = null;
    const drawReplay = () => {
      const picture = store.replay;
      const { path, car } = replayData(picture);
      if (picture?.path !== replayPath) {
        source(map, 'wf-replay')?.setData(path);
        // A new path is shown whole once.
        replayPath = picture?.path ?? null;
        if (replayPath && replayPath.length > 1) {
          const lngs = replayPath.map(([lng]) => lng);
          const lats = replayPath.map(([, lat]) => lat);
          map.fitBounds([[Math.min(...lngs), Math.min(...lats)], [Math.max(...lngs), Math.max(...lats)]], { padding: 60, duration: 600, maxZoom: 15 });
        }
      }
      source(map, 'wf-replay-car')?.setData(car);
    };
    const loop = (time: number) => {
      frame = requestAnimationFrame(loop);
      if (!readyRef.current) return;
      if (dirty.replay) {
        dirty.replay = false;
        drawReplay();
      }
      if (dirty.hexes) {
        dirty.hexes = false;
        source(map, 'wf-hexes')?.setData(store.hexesGeoJson());
      }
      const moving = store.moving() && store.tracks.size > 0;
      if ((moving || dirty.drivers) && time - lastFrame >= FRAME_MS) {
        lastFrame = time;
        dirty.drivers = false;
        const began = performance.now();
        drawn.drivers = store.driversGeoJson();
        source(map, 'wf-drivers')?.setData(drawn.drivers);
        const cost = performance.now() - began;
        store.drawCost.last = cost;
        store.drawCost.max = Math.max(store.drawCost.max, cost);
        store.drawCost.frames++;
        if (drawnFeed !== store.feedsReceived) {
          drawnFeed = store.feedsReceived;
          measureSince(DRAW_MEASURE, began, { drivers: drawn.drivers.features.length, message: drawnFeed });
        }
        // Lines end at the moving drivers.
        dirty.lines = true;
      }
      if (dirty.bookings) {
        dirty.bookings = false;
        dirty.lines = true;
        drawPickups();
      }
      if (dirty.lines) {
        dirty.lines = false;
        drawLines();
      }
      frameOverview();
      if (time - lastSummary >= SUMMARY_MS) {
        lastSummary = time;
        const summary = summaryAttributes(mapSummary({ ...drawn, replayPath }));
        for (const [name, value] of Object.entries(summary)) if (box.getAttribute(name) !== value) box.setAttribute(name, value);
      }
    };
    frame = requestAnimationFrame(loop);
    store.onChange = (topic: Topic) => {
      if (topic === 'drivers') dirty.drivers = true;
      if (topic === 'bookings') dirty.bookings = true;
      if (topic === 'hexes') dirty.hexes = true;
      if (topic === 'replay') dirty.replay = true;
    };
    // Countdowns and waiting colours change with time alone.
    const second = setInterval(() => {
      dirty.bookings = true;
    }, 1000);

    map.on('load', () => {
      basemapSources = Object.keys(map.getStyle().sources);
      addLayers(map);
      readyRef.current = true;
      map.setLayoutProperty('wf-hexes-fill', 'visibility', latest.current.showHexes ? 'visible' : 'none');
      map.setLayoutProperty('wf-hexes-line', 'visibility', latest.current.showHexes ? 'visible' : 'none');
      map.setFilter('wf-pickups-focused', ['==', ['get', 'id'], latest.current.focusedBooking ?? '']);
    });
    const clickBooking = (event: MapLayerMouseEvent) => {
      const id = event.features?.[0]?.properties?.id;
      if (typeof id === 'string') latest.current.onBooking(id);
    };
    const clickDriver = (event: MapLayerMouseEvent) => {
      const id = event.features?.[0]?.properties?.id;
      if (typeof id === 'string') latest.current.onDriver(id);
    };
    // The drop shows while the pointer is on a pickup.
    const hover = (event: MapLayerMouseEvent) => {
      map.getCanvas().style.cursor = 'pointer';
      const id = event.features?.[0]?.properties?.id;
      const booking = typeof id === 'string' ? store.bookings.get(id)?.booking : null;
      if (!booking?.drop || !booking.pickup) return;
      source(map, 'wf-hover')?.setData({
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [booking.drop.lng, booking.drop.lat] } },
          {
            type: 'Feature',
            properties: {},
            geometry: { type: 'LineString', coordinates: [[booking.pickup.lng, booking.pickup.lat], [booking.drop.lng, booking.drop.lat]] },
          },
        ],
      });
    };
    const unhover = () => {
      map.getCanvas().style.cursor = '';
      source(map, 'wf-hover')?.setData(EMPTY);
    };
    const pointer = () => {
      map.getCanvas().style.cursor = 'pointer';
    };
    const plain = () => {
      map.getCanvas().style.cursor = '';
    };
    // `data-map-idle` (browser tests wait for it before a screenshot): the
    // drivers keep moving, so "idle" is every tile drawn, not a still map.
    let basemapSources: string[] = [];
    map.on('render', () => {
      if (!readyRef.current) return;
      box.setAttribute('data-map-idle', String(basemapSources.every((id) => map.isSourceLoaded(id))));
    });
    map.on('idle', () => box.setAttribute('data-map-idle', 'true'));
    map.on('click', 'wf-pickups', clickBooking);
    map.on('click', 'wf-drivers', clickDriver);
    map.on('mouseenter', 'wf-pickups', hover);
    map.on('mousemove', 'wf-pickups', hover);
    map.on('mouseleave', 'wf-pickups', unhover);
    map.on('mouseenter', 'wf-drivers', pointer);
    map.on('mouseleave', 'wf-drivers', plain);
    return () => {
      cancelAnimationFrame(frame);
      clearInterval(second);
      store.onChange = null;
      takeView.current = null;
      readyRef.current = false;
      mapRef.current = null;
      map.remove();
    };
  }, [store, mapStyle]);

  useEffect(() => {
    const map = mapRef.current;
    if (!map || !readyRef.current) return;
    const visibility = showHexes ? 'visible' : 'none';
    map.setLayoutProperty('wf-hexes-fill', 'visibility', visibility);
    map.setLayoutProperty('wf-hexes-line', 'visibility', visibility);
  }, [showHexes]);

  useEffect(() => {
    const map = mapRef.current;
    if (!map || !readyRef.current) return;
    map.setFilter('wf-pickups-focused', ['==', ['get', 'id'], focusedBooking ?? '']);
  }, [focusedBooking]);

  useEffect(() => {
    const map = mapRef.current;
    if (!map || !focusTarget || focusTarget.points.length === 0) return;
    takeView.current?.();
    showFrame(map, frameFor(focusTarget.points, cityCentre(mapStyle), FOCUS_PADDING), 800);
  }, [focusTarget]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <Box
      ref={container}
      sx={{ height, width: '100%', borderRadius: 2, overflow: 'hidden', position: 'relative' }}
      data-testid="dispatch-map"
      data-renderer="maplibre"
      data-map-idle="false"
      data-basemap={typeof mapStyle === 'object' && mapStyle.name === 'Wayfare OpenStreetMap' ? 'osm' : 'other'}
      data-arrow-size={ARROW_SIZE}
    />
  );
}
