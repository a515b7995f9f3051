// Trip replay: where the car was at any moment of a finished trip, from its
// tracking points, and when each stage began.
import type { BookingStatus, TrackingPoint } from '@/types/api';
import { bearing } from './driver-motion';

export const REPLAY_SPEEDS = [1, 4, 16, 64] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];

export interface ReplayPosition {
  lat: number;
  lng: number;
  heading: number | null;
  /** How many points are behind (the travelled part of the path). */
  passed: number;
  status: BookingStatus;
}

/** The points in time order, those without a place left out. */
export function replayPoints(points: readonly TrackingPoint[]): TrackingPoint[] {
  return points.filter((point) => Number.isFinite(point.lat) && Number.isFinite(point.lng)).sort((a, b) => a.at - b.at);
}

/** Where the car was at `at` (clamped to the trip), between the two points around it. */
export function replayPosition(points: readonly TrackingPoint[], at: number): ReplayPosition | null {
  if (points.length === 0) return null;
  const first = points[0];
  if (at <= first.at || points.length === 1) {
    const next = points[1];
    return { lat: first.lat, lng: first.lng, heading: next ? bearing(first.lat, first.lng, next.lat, next.lng) : null, passed: 1, status: first.status };
  }
  // Binary search for the last point at or before `at`.
  let low = 0;
  let high = points.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (points[middle].at <= at) low = middle;
    else high = middle - 1;
  }
  const before = points[low];
  const after = points[low + 1];
  if (!after) return { lat: before.lat, lng: before.lng, heading: null, passed: points.length, status: before.status };
  const span = after.at - before.at;
  const fraction = span > 0 ? (at - before.at) / span : 1;
  const moving = before.lat !== after.lat || before.lng !== after.lng;
  return {
    lat: before.lat + (after.lat - before.lat) * fraction,
    lng: before.lng + (after.lng - before.lng) * fraction,
    heading: moving ? bearing(before.lat, before.lng, after.lat, after.lng) : null,
    passed: low + 1,
    status: before.status,
  };
}

export interface Stage {
  status: BookingStatus;
  at: number;
  /** From the first point of the trip. */
  sinceStart: number;
}

/** Each stage the trip went through, at its first point. */
export function stageTimes(points: readonly TrackingPoint[]): Stage[] {
  const stages: Stage[] = [];
  const start = points[0]?.at ?? 0;
  for (const point of points) {
    if (stages.at(-1)?.status === point.status) continue;
    stages.push({ status: point.status, at: point.at, sinceStart: point.at - start });
  }
  return stages;
}

/** The replay clock: trip time advanced by wall time at a speed, stopping at the end. */
export function advance(tripAt: number, elapsedMs: number, speed: number, end: number) {
  return Math.min(end, tripAt + elapsedMs * speed);
}
