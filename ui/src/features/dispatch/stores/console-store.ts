// The console's live state, kept outside React: a `drivers` message for
// 10,000 drivers must cost a few milliseconds, so the map reads this store
// and writes its sources itself (map.getSource(...).setData) instead of
// React rendering a marker per driver. The panels (log, figures, the focused
// booking) subscribe to a topic and re-render at most a few times a second.
//
// This is a deliberate second copy of server state next to TanStack Query
// (STYLE.md prefers the query cache): the cache would hand React a new list
// per message, which is the cost this store exists to avoid.
import type { DispatchEntry } from '@/lib/dispatch-entries';
import type { Booking } from '@/types/api';
import {
  applyBooking,
  applyDispatchEntry,
  fromActive,
  lineFeatures,
  pickupFeatures,
  pruneStaleOffers,
  type ConsoleBooking,
} from '../lib/bookings';
import { applyDriversFeed, inMotion, positionAt, type DriverTrack } from '../lib/driver-motion';
import { FEED_MEASURE, measureSince } from '../lib/feed-measure';
import { DriverDirectory, type NamedUser } from '../lib/driver-directory';
import { mergeEntries, pushEntry } from '../lib/log';
import type { ReplayPosition } from '../lib/replay';
import type { ActiveBooking, ConsoleEvent, FeedDriver, HexesEvent } from '../lib/types';

export type Topic = 'drivers' | 'bookings' | 'log' | 'figures' | 'hexes' | 'replay' | 'names';

/** A finished trip drawn on the map: its path, and the car where the replay is. */
export interface ReplayPicture {
  path: [number, number][];
  car: ReplayPosition | null;
}

/** Log entries the clock offset is estimated from. */
const CLOCK_SAMPLES = 20;

/** Panels hear of changes at most this often; the map draws every frame anyway. */
const PANEL_NOTIFY_MS = 250;

type DriverFeature = GeoJSON.Feature<GeoJSON.Point, { id: string; state: string; stale: boolean; carType: string; heading: number; hasHeading: boolean }>;

export class ConsoleStore {
  readonly tracks = new Map<string, DriverTrack>();
  bookings = new Map<string, ConsoleBooking>();
  log: DispatchEntry[] = [];
  console: ConsoleEvent | null = null;
  hexes: HexesEvent | null = null;
  replay: ReplayPicture | null = null;
  /** Road routes ([lng, lat]) of assigned drivers to their pickups, by booking:
   * the focused booking's (hooks/use-pickup-route). */
  readonly routes = new Map<string, [number, number][]>();
  /** When the last `drivers` message came (the store's clock). */
  lastFeedAt = Number.NEGATIVE_INFINITY;
  /** The server's clock minus this browser's (ms): deadlines and booking
   * times are the server's. Estimated from live log entries, whose `at` is the
   * server's clock when they happened: the largest difference of the last few,
   * since the network's delay only ever makes it smaller. */
  serverOffset = 0;
  private readonly clockSamples: number[] = [];
  /** What drawing the drivers cost the map's frames (ms on the main thread),
   * for the benchmarks: the last frame and the dearest since the page opened. */
  readonly drawCost = { last: 0, max: 0, frames: 0 };
  /** `drivers` messages applied since the page opened (the map's first
   * frame after each is measured, lib/feed-measure). */
  feedsReceived = 0;
  /** Whether `/dispatch/active` has been read since the page opened. */
  started = false;

  private readonly versions: Record<Topic, number> = { drivers: 0, bookings: 0, log: 0, figures: 0, hexes: 0, replay: 0, names: 0 };
  /** What the panels were last told: their snapshot for useSyncExternalStore. */
  private readonly published: Record<Topic, number> = { drivers: 0, bookings: 0, log: 0, figures: 0, hexes: 0, replay: 0, names: 0 };
  private readonly listeners = new Map<Topic, Set<() => void>>();
  private readonly pending = new Set<Topic>();
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  private driverFeatures: DriverFeature[] = [];
  private readonly driverCollection: GeoJSON.FeatureCollection<GeoJSON.Point> = { type: 'FeatureCollection', features: [] };

  /** Drivers' names and fleets, read once each (lib/driver-directory). */
  readonly directory: DriverDirectory;

  constructor(
    readonly now: () => number = () => Date.now(),
    readUsers: (ids: string[]) => Promise<NamedUser[]> = async () => [],
  ) {
    this.directory = new DriverDirectory(readUsers, () => this.changed('names'));
  }

  // ---- inputs -------------------------------------------------------------

  /** The starting state; later events are applied on top. */
  loadActive(list: readonly ActiveBooking[]) {
    this.bookings = fromActive(list);
    this.started = true;
    this.changed('bookings');
  }

  receiveDrivers(payload: unknown) {
    const began = performance.now();
    const feed = Array.isArray(payload) ? (payload as FeedDriver[]) : [];
    const now = this.now();
    const membership = applyDriversFeed(this.tracks, feed, now);
    if (membership || this.driverFeatures.length !== this.tracks.size) this.rebuildDriverFeatures();
    else this.refreshDriverProperties();
    this.lastFeedAt = now;
    this.feedsReceived++;
    this.changed('drivers');
    measureSince(FEED_MEASURE, began, { drivers: feed.length, message: this.feedsReceived });
  }

  /** Entries read from storage (the recent past), merged with those the
   * socket has brought; the bookings' offers come from `/dispatch/active`. */
  loadLog(entries: readonly DispatchEntry[]) {
    this.log = mergeEntries(this.log, entries);
    this.changed('log');
  }

  receiveDispatch(entry: DispatchEntry) {
    if (!entry || typeof entry.booking !== 'string') return;
    if (Number.isFinite(entry.at)) {
      this.clockSamples.push(entry.at - this.now());
      if (this.clockSamples.length > CLOCK_SAMPLES) this.clockSamples.shift();
      this.serverOffset = Math.max(...this.clockSamples);
    }
    this.log = pushEntry(this.log, entry);
    if (applyDispatchEntry(this.bookings, entry)) this.changed('bookings');
    this.changed('log');
  }

  receiveBooking(payload: Booking | { booking: Booking }) {
    const booking = 'booking' in payload && typeof payload.booking === 'object' ? payload.booking : (payload as Booking);
    if (!booking?.id) return;
    if (applyBooking(this.bookings, booking)) this.changed('bookings');
  }

  receiveConsole(payload: ConsoleEvent) {
    if (!payload?.figures) return;
    this.console = { figures: payload.figures, history: Array.isArray(payload.history) ? payload.history : [] };
    this.changed('figures');
  }

  receiveHexes(payload: HexesEvent) {
    if (!payload || !Array.isArray(payload.cells)) return;
    this.hexes = payload;
    this.changed('hexes');
  }

  /** The replay's picture, drawn by the map at its next frame (no React render per frame). */
  setReplay(picture: ReplayPicture | null) {
    this.replay = picture;
    this.versions.replay++;
    this.onChange?.('replay');
  }

  /** The road from a booking's driver to its pickup, or none (straight line). */
  setRoute(booking: string, route: [number, number][] | null) {
    if (route) this.routes.set(booking, route);
    else if (!this.routes.delete(booking)) return;
    this.changed('bookings');
  }

  /** Now, on the server's clock. */
  serverNow() {
    return this.now() + this.serverOffset;
  }

  /** Once a second: offers whose withdrawal was lost go. */
  tick() {
    if (pruneStaleOffers(this.bookings, this.serverNow())) this.changed('bookings');
  }

  // ---- what the map draws -------------------------------------------------

  /** Where a driver is drawn now, or null when not online. */
  locate = (driver: string) => {
    const track = this.tracks.get(driver);
    return track ? positionAt(track, this.now()) : null;
  };

  moving() {
    return inMotion(this.lastFeedAt, this.now());
  }

  /** The drivers at this moment, as one collection reused frame after frame
   * (its points are moved in place: no 10,000 new objects per frame). */
  driversGeoJson(): GeoJSON.FeatureCollection<GeoJSON.Point> {
    const now = this.now();
    for (const feature of this.driverFeatures) {
      const track = this.tracks.get(feature.properties.id);
      if (!track) continue;
      const at = positionAt(track, now);
      feature.geometry.coordinates[0] = at.lng;
      feature.geometry.coordinates[1] = at.lat;
      feature.properties.heading = at.heading ?? 0;
      feature.properties.hasHeading = at.heading !== null;
    }
    return this.driverCollection;
  }

  pickupsGeoJson(): GeoJSON.FeatureCollection<GeoJSON.Point> {
    return { type: 'FeatureCollection', features: pickupFeatures(this.bookings.values(), this.serverNow()) };
  }

  linesGeoJson(countdown?: (seconds: number) => string): GeoJSON.FeatureCollection<GeoJSON.LineString> {
    return { type: 'FeatureCollection', features: lineFeatures(this.bookings.values(), this.locate, this.serverNow(), countdown, this.routes) };
  }

  hexesGeoJson(): GeoJSON.FeatureCollection<GeoJSON.Polygon> {
    return {
      type: 'FeatureCollection',
      features: (this.hexes?.cells ?? []).map((cell) => ({
        type: 'Feature',
        properties: {
          cell: cell.cell,
          available: cell.available,
          open: cell.open,
          recent: cell.recent,
          unserved: cell.unserved,
          short: cell.short,
          demand: cell.open + cell.recent + cell.unserved,
        },
        geometry: { type: 'Polygon', coordinates: [cell.boundary] },
      })),
    };
  }

  private rebuildDriverFeatures() {
    this.driverFeatures = [...this.tracks.values()].map((track) => ({
      type: 'Feature',
      id: track.id,
      properties: { id: track.id, state: track.state, stale: track.stale, carType: track.carType ?? '', heading: 0, hasHeading: false },
      geometry: { type: 'Point', coordinates: [track.toLng, track.toLat] },
    }));
    this.driverCollection.features = this.driverFeatures;
  }

  private refreshDriverProperties() {
    for (const feature of this.driverFeatures) {
      const track = this.tracks.get(feature.properties.id);
      if (!track) continue;
      feature.properties.state = track.state;
      feature.properties.stale = track.stale;
      feature.properties.carType = track.carType ?? '';
    }
  }

  // ---- subscriptions ------------------------------------------------------

  version(topic: Topic) {
    return this.published[topic];
  }

  subscribe(topic: Topic, listener: () => void) {
    let set = this.listeners.get(topic);
    if (!set) {
      set = new Set();
      this.listeners.set(topic, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /** The map listens to every change at once; the panels through `subscribe`, throttled. */
  onChange: ((topic: Topic) => void) | null = null;

  private changed(topic: Topic) {
    this.versions[topic]++;
    this.onChange?.(topic);
    this.pending.add(topic);
    if (this.flushTimer === null) this.flushTimer = setTimeout(() => this.flush(), PANEL_NOTIFY_MS);
  }

  /** Tells the panels now (tests, and the end of the page). */
  flush() {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const topics = [...this.pending];
    this.pending.clear();
    for (const topic of topics) this.published[topic] = this.versions[topic];
    for (const topic of topics) for (const listener of this.listeners.get(topic) ?? []) listener();
  }

  dispose() {
    this.directory.dispose();
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.listeners.clear();
    this.onChange = null;
  }
}
