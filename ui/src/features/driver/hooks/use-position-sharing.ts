import { useAtom, useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useMemo, useRef } from 'react';
import { decodePolyline } from '@/lib/polyline';
import { socketStatusAtom, type LocationPayload } from '@/lib/socket';
import type { Booking, LatLng } from '@/types/api';
import { getRoute, sendLocation } from '../api/driver';
import { isStale, isUsableFix, POLL_AFTER_MS } from '../lib/fix';
import { PositionOutbox } from '../lib/position-outbox';
import { advance, IDLE_HEARTBEAT_TICKS, legFor, speedFor, TICK_MS, tripPath } from '../lib/simulation';
import {
  driverPositionAtom,
  fixStatusAtom,
  sharingModeAtom,
  simulationAtom,
  unsentPositionsAtom,
  type DriverPosition,
  type SharingMode,
} from '../stores/driver-position';

function payloadOf(position: DriverPosition): LocationPayload {
  return { lat: position.lat, lng: position.lng, heading: position.heading, speed: position.speed, accuracy: position.accuracy, at: position.at };
}

/** The mode in force: simulating only where the server runs the demo city. */
export function useEffectiveMode(demoCity: boolean): SharingMode {
  const mode = useAtomValue(sharingModeAtom);
  return demoCity ? mode : 'device';
}

/**
 * Shares the driver's position. The device's geolocation is watched while
 * the console is open (so going online starts from a real fix) and, while
 * online, every usable fix is sent with its own time through an outbox that
 * keeps them in order across a lost network. On the demo city the driver
 * may instead simulate driving along the trip's route.
 */
export function usePositionSharing({ online, trip, home, demoCity }: { online: boolean; trip: Booking | null; home: LatLng | null; demoCity: boolean }) {
  const mode = useEffectiveMode(demoCity);
  const [position, setPosition] = useAtom(driverPositionAtom);
  const setFix = useSetAtom(fixStatusAtom);
  const setUnsent = useSetAtom(unsentPositionsAtom);
  const setSimulation = useSetAtom(simulationAtom);
  const socketStatus = useAtomValue(socketStatusAtom);
  const positionRef = useRef<DriverPosition | null>(position);
  positionRef.current = position;
  const onlineRef = useRef(online);
  onlineRef.current = online;

  const outbox = useMemo(
    () =>
      new PositionOutbox({
        send: sendLocation,
        isOnline: () => typeof navigator === 'undefined' || navigator.onLine !== false,
        onSizeChange: setUnsent,
      }),
    [setUnsent],
  );

  // What waits goes out as soon as there is a way: the socket back, or the network.
  useEffect(() => {
    if (socketStatus === 'connected') void outbox.flush();
  }, [socketStatus, outbox]);
  useEffect(() => {
    const retry = () => void outbox.flush();
    window.addEventListener('online', retry);
    const timer = setInterval(() => outbox.size > 0 && retry(), 5_000);
    return () => {
      window.removeEventListener('online', retry);
      clearInterval(timer);
    };
  }, [outbox]);
  useEffect(() => {
    if (!online) outbox.clear();
  }, [online, outbox]);

  // At most one fix a second; a fix that comes sooner waits its turn, and
  // only the newest of those goes, so the last place is never lost.
  const lastSent = useRef(0);
  const waiting = useRef<{ fix: DriverPosition | null; timer: ReturnType<typeof setTimeout> | null }>({ fix: null, timer: null });
  const send = (fix: DriverPosition) => {
    lastSent.current = Date.now();
    void outbox.push(payloadOf(fix));
  };
  const publish = (next: DriverPosition, force = false) => {
    setPosition(next);
    if (!onlineRef.current) return;
    const wait = TICK_MS - (Date.now() - lastSent.current);
    if (force || wait <= 0) {
      waiting.current.fix = null;
      send(next);
      return;
    }
    waiting.current.fix = next;
    waiting.current.timer ??= setTimeout(() => {
      const fix = waiting.current.fix;
      waiting.current = { fix: null, timer: null };
      if (fix && onlineRef.current) send(fix);
    }, wait);
  };
  useEffect(
    () => () => {
      if (waiting.current.timer) clearTimeout(waiting.current.timer);
    },
    [],
  );
  const publishRef = useRef(publish);
  publishRef.current = publish;

  // The device's own position.
  useEffect(() => {
    if (mode !== 'device') return;
    if (typeof navigator === 'undefined' || !('geolocation' in navigator)) {
      setFix({ state: 'unsupported' });
      return;
    }
    const geolocation = navigator.geolocation;
    let lastUsableAt: number | undefined;
    let lastFixAt = Date.now();
    setFix({ state: 'waiting' });
    const onFix = (fix: GeolocationPosition) => {
      const now = Date.now();
      lastFixAt = now;
      const accuracy = Number.isFinite(fix.coords.accuracy) ? fix.coords.accuracy : undefined;
      if (!isUsableFix(accuracy)) {
        setFix({ state: 'weak', accuracy, lastAt: lastUsableAt });
        return;
      }
      lastUsableAt = now;
      setFix({ state: 'ok', accuracy, lastAt: now });
      publishRef.current({
        lat: fix.coords.latitude,
        lng: fix.coords.longitude,
        heading: fix.coords.heading ?? undefined,
        speed: fix.coords.speed ?? undefined,
        accuracy,
        at: fix.timestamp || now,
      });
    };
    const onError = (error: GeolocationPositionError) => {
      if (error.code === error.PERMISSION_DENIED) setFix({ state: 'denied' });
    };
    const options = { enableHighAccuracy: true, maximumAge: 0, timeout: 30_000 };
    const watch = geolocation.watchPosition(onFix, onError, options);
    const timer = setInterval(() => {
      const now = Date.now();
      // A parked phone may say nothing while it stays put: ask it.
      if (now - lastFixAt >= POLL_AFTER_MS) {
        lastFixAt = now;
        geolocation.getCurrentPosition(onFix, onError, { ...options, maximumAge: POLL_AFTER_MS / 2 });
      }
      if (lastUsableAt !== undefined && isStale(lastUsableAt, now)) {
        setFix((current) => (current.state === 'denied' ? current : { ...current, state: 'stale' }));
      }
    }, 1_000);
    return () => {
      geolocation.clearWatch(watch);
      clearInterval(timer);
    };
  }, [mode, setFix]);

  // Going online (or coming back to the console) sends where the device is now.
  useEffect(() => {
    if (online && positionRef.current && mode === 'device') publishRef.current({ ...positionRef.current }, true);
  }, [online, mode]);

  // Simulated driving along the route of the current leg (the demo city only).
  const leg = legFor(trip);
  const tripId = trip?.id;
  const tripRef = useRef(trip);
  tripRef.current = trip;
  useEffect(() => {
    if (mode !== 'simulate') return;
    setFix({ state: 'ok' });
    const start = positionRef.current ?? (home ? { ...home, at: Date.now() } : null);
    if (!positionRef.current && start) setPosition(start);
    if (!online) return;
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
        publishRef.current({ ...step.point, heading: step.heading, at: Date.now(), speed: step.done ? 0 : undefined }, true);
        if (step.done) {
          path = null;
          setSimulation({ leg, arrived: true });
        }
        return;
      }
      idleTicks += 1;
      if (current && idleTicks >= IDLE_HEARTBEAT_TICKS) {
        idleTicks = 0;
        publishRef.current({ ...current, at: Date.now(), speed: 0 }, true);
      }
    }, TICK_MS);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [online, mode, leg, tripId, home, setFix, setSimulation, setPosition]);

  return position;
}

