import { describe, expect, it, vi } from 'vitest';
import { testBooking } from '@/testing/fixtures';
import { ConsoleStore } from '../stores/console-store';

function clock(start = 1_800_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('the console store', () => {
  it('moves the drivers of one reused collection between feed messages', () => {
    const time = clock();
    const store = new ConsoleStore(time.now);
    store.receiveDrivers([{ id: 'd1', carType: 'Economy', lat: 0, lng: 0, available: true, state: 'available', heading: 0 }]);
    const first = store.driversGeoJson();
    time.advance(1000);
    store.receiveDrivers([{ id: 'd1', carType: 'Economy', lat: 0.01, lng: 0, available: false, state: 'offered', heading: 0 }]);
    time.advance(500);
    const halfway = store.driversGeoJson();
    expect(halfway).toBe(first);
    expect(halfway.features[0].geometry.coordinates[1]).toBeCloseTo(0.005, 6);
    expect(halfway.features[0].properties).toMatchObject({ id: 'd1', state: 'offered', hasHeading: true });
    expect(store.moving()).toBe(true);
    time.advance(600);
    expect(store.moving()).toBe(false);
    store.dispose();
  });

  it('draws offer lines from `dispatch` entries and removes them on withdrawal', () => {
    const time = clock();
    const now = time.now();
    const store = new ConsoleStore(time.now);
    store.loadActive([{ ...testBooking({ status: 'NEW' }), offered: [] }]);
    store.receiveDrivers([{ id: 'd1', carType: 'Economy', lat: 39.3, lng: -76.6, available: false, state: 'offered' }]);
    store.receiveDispatch({ at: now, booking: 'booking-1', kind: 'offered', wave: 1, drivers: ['d1'], distances_km: [1], deadline: now + 10_000, car_type: 'Economy' });
    expect(store.linesGeoJson((seconds) => `${seconds} s`).features.map((line) => line.properties?.label)).toEqual(['10 s']);
    expect(store.log).toHaveLength(1);
    store.receiveDispatch({ at: now + 2000, booking: 'booking-1', kind: 'withdrawn', drivers: ['d1'], reason: 'declined', car_type: 'Economy' });
    expect(store.linesGeoJson().features).toEqual([]);
    expect(store.log.map((item) => item.kind)).toEqual(['withdrawn', 'offered']);
    store.dispose();
  });

  it('tells the map at once and the panels a moment later, once for many changes', () => {
    vi.useFakeTimers();
    try {
      const store = new ConsoleStore();
      const map = vi.fn();
      const panel = vi.fn();
      store.onChange = map;
      store.subscribe('log', panel);
      for (let index = 0; index < 50; index++) store.receiveDispatch({ at: index, booking: 'b', kind: 'no_candidates', wave: 1 });
      expect(map).toHaveBeenCalledTimes(50);
      expect(panel).not.toHaveBeenCalled();
      expect(store.version('log')).toBe(0);
      vi.advanceTimersByTime(300);
      expect(panel).toHaveBeenCalledTimes(1);
      expect(store.version('log')).toBe(50);
      store.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the figures and the hexagons as they came, and draws each cell from its boundary', () => {
    const store = new ConsoleStore();
    store.receiveHexes({
      resolution: 8,
      cells: [{ cell: '882a100d25fffff', available: 1, open: 2, recent: 1, unserved: 1, short: true, boundary: [[0, 0], [1, 0], [1, 1], [0, 0]] }],
    });
    const hexes = store.hexesGeoJson();
    expect(hexes.features[0].properties).toMatchObject({ short: true, demand: 4 });
    expect(hexes.features[0].geometry.coordinates[0]).toHaveLength(4);
    store.receiveConsole({ figures: { at: 1, online: 3 } as never, history: undefined as never });
    expect(store.console?.history).toEqual([]);
    store.dispose();
  });
});

describe("the console's clock", () => {
  it("counts offers down on the server's clock, learnt from the log's entries", () => {
    const time = clock();
    const store = new ConsoleStore(time.now);
    // The server's clock is 30 s ahead of this browser's; entries take 40 to 200 ms to arrive.
    const server = () => time.now() + 30_000;
    store.loadActive([{ ...testBooking({ status: 'NEW' }), offered: [] }]);
    store.receiveDrivers([{ id: 'd1', carType: 'Economy', lat: 39.3, lng: -76.6, available: false, state: 'offered' }]);
    store.receiveDispatch({ at: server() - 200, booking: 'other', kind: 'no_candidates', wave: 1 });
    store.receiveDispatch({ at: server() - 40, booking: 'booking-1', kind: 'offered', wave: 1, drivers: ['d1'], deadline: server() + 14_900 });
    expect(store.serverOffset).toBe(29_960);
    expect(store.linesGeoJson((seconds) => `${seconds}`).features[0].properties?.label).toBe('15');
    time.advance(16_000);
    expect(store.linesGeoJson((seconds) => `${seconds}`).features[0].properties?.label).toBe('0');
    store.dispose();
  });
});
