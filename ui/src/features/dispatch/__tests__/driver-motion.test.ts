import { describe, expect, it } from 'vitest';
import { applyDriversFeed, bearing, inMotion, MOTION_MS, positionAt, turn, type DriverTrack } from '../lib/driver-motion';
import type { FeedDriver } from '../lib/types';

const driver = (id: string, lat: number, lng: number, extra: Partial<FeedDriver> = {}): FeedDriver => ({
  id,
  carType: 'Economy',
  lat,
  lng,
  available: true,
  state: 'available',
  heading: null,
  ...extra,
});

describe('drivers moving between feed messages', () => {
  it('appear where first reported, then glide to the next report over about a second', () => {
    const tracks = new Map<string, DriverTrack>();
    expect(applyDriversFeed(tracks, [driver('a', 39.28, -76.59, { heading: 90 })], 0)).toBe(true);
    expect(positionAt(tracks.get('a')!, 0)).toEqual({ lat: 39.28, lng: -76.59, heading: 90 });
    expect(applyDriversFeed(tracks, [driver('a', 39.29, -76.58, { heading: 90 })], 1000)).toBe(false);
    const halfway = positionAt(tracks.get('a')!, 1000 + MOTION_MS / 2);
    expect(halfway.lat).toBeCloseTo(39.285, 6);
    expect(halfway.lng).toBeCloseTo(-76.585, 6);
    // It stops at the reported place, not beyond.
    const later = positionAt(tracks.get('a')!, 1000 + MOTION_MS * 3);
    expect([later.lat, later.lng]).toEqual([39.29, -76.58]);
  });

  it('start the next leg from where the driver is drawn, not where it was last reported', () => {
    const tracks = new Map<string, DriverTrack>();
    applyDriversFeed(tracks, [driver('a', 0, 0)], 0);
    applyDriversFeed(tracks, [driver('a', 0.01, 0)], 1000);
    // A message comes early, half way through the leg.
    applyDriversFeed(tracks, [driver('a', 0.02, 0)], 1500);
    const track = tracks.get('a')!;
    expect(track.fromLat).toBeCloseTo(0.005, 6);
    expect(positionAt(track, 1500).lat).toBeCloseTo(0.005, 6);
    expect(positionAt(track, 2500).lat).toBeCloseTo(0.02, 6);
  });

  it('drop the drivers a message leaves out, and take their new state', () => {
    const tracks = new Map<string, DriverTrack>();
    applyDriversFeed(tracks, [driver('a', 0, 0), driver('b', 1, 1)], 0);
    expect(applyDriversFeed(tracks, [driver('b', 1, 1, { state: 'on_trip', available: false })], 1000)).toBe(true);
    expect([...tracks.keys()]).toEqual(['b']);
    expect(tracks.get('b')!.state).toBe('on_trip');
  });

  it('grey out while the server says their position is stale, and come back with the next fix', () => {
    const tracks = new Map<string, DriverTrack>();
    applyDriversFeed(tracks, [driver('a', 0, 0)], 0);
    expect(tracks.get('a')!.stale).toBe(false);
    applyDriversFeed(tracks, [driver('a', 0, 0, { stale: true })], 1000);
    expect(tracks.get('a')!.stale).toBe(true);
    applyDriversFeed(tracks, [driver('a', 0.001, 0)], 2000);
    expect(tracks.get('a')!.stale).toBe(false);
  });

  it('derive a state from `available` when the server sends none', () => {
    const tracks = new Map<string, DriverTrack>();
    applyDriversFeed(tracks, [driver('a', 0, 0, { state: undefined, available: false }), driver('b', 0, 0, { state: undefined })], 0);
    expect(tracks.get('a')!.state).toBe('busy');
    expect(tracks.get('b')!.state).toBe('available');
  });

  it('turn the short way round, and head the way they move when the device gives no heading', () => {
    expect(turn(350, 10, 0.5)).toBeCloseTo(0, 6);
    expect(turn(10, 350, 0.5)).toBeCloseTo(0, 6);
    expect(turn(null, 45, 0.5)).toBe(45);
    expect(bearing(0, 0, 1, 0)).toBeCloseTo(0, 6);
    expect(bearing(0, 0, 0, 1)).toBeCloseTo(90, 6);
    const tracks = new Map<string, DriverTrack>();
    applyDriversFeed(tracks, [driver('a', 0, 0)], 0);
    applyDriversFeed(tracks, [driver('a', 0, 0.001)], 1000);
    expect(tracks.get('a')!.toHeading).toBeCloseTo(90, 3);
  });

  it('jump rather than glide across the city, and ignore positions that are not numbers', () => {
    const tracks = new Map<string, DriverTrack>();
    applyDriversFeed(tracks, [driver('a', 0, 0)], 0);
    applyDriversFeed(tracks, [driver('a', 1, 1), driver('b', Number.NaN, 0)], 1000);
    expect(positionAt(tracks.get('a')!, 1000)).toMatchObject({ lat: 1, lng: 1 });
    expect(tracks.has('b')).toBe(false);
  });

  it('say they are moving only for a second after a message', () => {
    expect(inMotion(1000, 1500)).toBe(true);
    expect(inMotion(1000, 2000)).toBe(false);
  });
});
