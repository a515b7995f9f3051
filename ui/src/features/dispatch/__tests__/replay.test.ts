import { describe, expect, it } from 'vitest';
import type { TrackingPoint } from '@/types/api';
import { advance, replayPoints, replayPosition, stageTimes } from '../lib/replay';

const points: TrackingPoint[] = [
  { at: 1000, status: 'ACCEPTED', lat: 0, lng: 0 },
  { at: 3000, status: 'ACCEPTED', lat: 0.002, lng: 0 },
  { at: 5000, status: 'ARRIVED', lat: 0.002, lng: 0 },
  { at: 6000, status: 'STARTED', lat: 0.002, lng: 0 },
  { at: 16000, status: 'REACHED', lat: 0.002, lng: 0.01 },
];

describe('trip replay', () => {
  it('puts the car between the two points around a moment, facing the way it went', () => {
    const position = replayPosition(points, 2000)!;
    expect(position.lat).toBeCloseTo(0.001, 9);
    expect(position.heading).toBeCloseTo(0, 6);
    expect(position.passed).toBe(1);
    const onTrip = replayPosition(points, 11000)!;
    expect(onTrip.lng).toBeCloseTo(0.005, 9);
    expect(onTrip.heading).toBeCloseTo(90, 6);
    expect(onTrip.status).toBe('STARTED');
  });

  it('holds the car at the ends before the start and after the drop', () => {
    expect(replayPosition(points, 0)).toMatchObject({ lat: 0, lng: 0, passed: 1 });
    expect(replayPosition(points, 99_000)).toMatchObject({ lat: 0.002, lng: 0.01, passed: 5 });
    expect(replayPosition([], 0)).toBeNull();
  });

  it('lists each stage at its first point, with the time since the start', () => {
    expect(stageTimes(points)).toEqual([
      { status: 'ACCEPTED', at: 1000, sinceStart: 0 },
      { status: 'ARRIVED', at: 5000, sinceStart: 4000 },
      { status: 'STARTED', at: 6000, sinceStart: 5000 },
      { status: 'REACHED', at: 16000, sinceStart: 15000 },
    ]);
  });

  it('runs the trip clock at the chosen speed and stops at the end', () => {
    expect(advance(1000, 100, 16, 16000)).toBe(2600);
    expect(advance(15000, 100, 64, 16000)).toBe(16000);
  });

  it('orders the points by time and leaves out those without a place', () => {
    const mixed = [points[2], { ...points[0], lat: Number.NaN }, points[1]];
    expect(replayPoints(mixed).map((point) => point.at)).toEqual([3000, 5000]);
  });
});
