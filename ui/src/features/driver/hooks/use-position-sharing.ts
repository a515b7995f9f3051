import { useAtom, useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useRef } from 'react';
import { decodePolyline } from '@/lib/polyline';
import type { Booking, LatLng } from '@/types/api';
import { getRoute, sendLocation } from '../api/driver';
import { advance, IDLE_HEARTBEAT_TICKS, legFor, speedFor, TICK_MS, tripPath } from '../lib/simulation';
import { driverPositionAtom, locationErrorAtom, sharingModeAtom, simulationAtom, type DriverPosition } from '../stores/driver-position';

/** Shares the online driver's position: from the browser's geolocation, or
 * by simulating the drive along the trip's route. */
export function usePositionSharing({ online, trip, home }: { online: boolean; trip: Booking | null; home: LatLng | null }) {
  const mode = useAtomValue(sharingModeAtom);
  const [position, setPosition] = useAtom(driverPositionAtom);
  const setError = useSetAtom(locationErrorAtom);
  const setSimulation = useSetAtom(simulationAtom);
  const positionRef = useRef<DriverPosition | null>(position);
  positionRef.current = position;

  useEffect(() => {
    if (!positionRef.current && home) setPosition({ ...home, at: Date.now() });
  }, [home, setPosition]);

  const publish = (next: DriverPosition, speed?: number, accuracy?: number) => {
    setPosition(next);
    sendLocation({ lat: next.lat, lng: next.lng, heading: next.heading, speed, accuracy, at: next.at }).catch(() => {
      // A lost position is replaced by the next one.
    });
  };
  const publishRef = useRef(publish);
  publishRef.current = publish;

  // The browser's own position.
  useEffect(() => {
    if (!online || mode !== 'device') return;
    if (!('geolocation' in navigator)) {
      setError('allow_location');
      return;
    }
    setError(null);
    let last = 0;
    const watch = navigator.geolocation.watchPosition(
      (fix) => {
        setError(null);
        const now = Date.now();
        if (now - last < TICK_MS) return;
        last = now;
        publishRef.current(
          { lat: fix.coords.latitude, lng: fix.coords.longitude, heading: fix.coords.heading ?? undefined, at: fix.timestamp || now },
          fix.coords.speed ?? undefined,
          fix.coords.accuracy,
        );
      },
      () => setError('allow_location'),
      { enableHighAccuracy: true, maximumAge: 5000, timeout: 20_000 },
    );
    return () => navigator.geolocation.clearWatch(watch);
  }, [online, mode, setError]);

  // Simulated driving along the route of the current leg.
  const leg = legFor(trip);
  const tripId = trip?.id;
  const tripRef = useRef(trip);
  tripRef.current = trip;
  useEffect(() => {
    if (!online || mode !== 'simulate') return;
    setError(null);
    let cancelled = false;
    let path: LatLng[] | null = null;
    let speed = 0;
    let travelled = 0;
    const follow = (points: LatLng[]) => {
      path = points;
      speed = speedFor(points) * (TICK_MS / 1000);
    };
    let idleTicks = IDLE_HEARTBEAT_TICKS - 1;
    setSimulation({ leg, arrived: leg === 'wait' });
    const booking = tripRef.current;
    const from = positionRef.current ?? home;
    if (leg === 'to-pickup' && booking && from) {
      getRoute(from, booking.pickup)
        .then((route) => {
          const points = decodePolyline(route.polylinePoints);
          if (!cancelled) follow(points.length > 1 ? [from, ...points] : [from, booking.pickup]);
        })
        .catch(() => {
          if (!cancelled) follow([from, booking.pickup]);
        });
    } else if (leg === 'to-drop' && booking) {
      follow(tripPath(booking));
    }
    const timer = setInterval(() => {
      const current = positionRef.current;
      if (path) {
        const step = advance(path, travelled, speed);
        travelled = step.travelled;
        publishRef.current({ ...step.point, heading: step.heading, at: Date.now() }, step.done ? 0 : undefined);
        if (step.done) {
          path = null;
          setSimulation({ leg, arrived: true });
        }
        return;
      }
      idleTicks += 1;
      if (current && idleTicks >= IDLE_HEARTBEAT_TICKS) {
        idleTicks = 0;
        publishRef.current({ ...current, at: Date.now() }, 0);
      }
    }, TICK_MS);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [online, mode, leg, tripId, home, setError, setSimulation]);

  return position;
}
