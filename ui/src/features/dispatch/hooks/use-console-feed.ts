import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { DispatchEntry } from '@/lib/dispatch-entries';
import { connectSocket } from '@/lib/socket';
import type { Booking } from '@/types/api';
import { activeBookingsQueryOptions, dispatchKeys, recentLogQueryOptions } from '../api/dispatch';
import type { ConsoleEvent, HexesEvent } from '../lib/types';
import type { ConsoleStore } from '../stores/console-store';

export type ResolutionState = { state: 'idle' } | { state: 'asking' } | { state: 'refused'; code: string };

/**
 * Feeds the store from the socket (the `dispatch` room, or a fleet admin's
 * fleet room, which the server joins the socket to at its handshake) and
 * from `GET /dispatch/active` and `GET /dispatch/log`, and asks for the hexagons at `resolution`
 * on every (re)connection and every change of resolution.
 */
export function useConsoleFeed(store: ConsoleStore, resolution: number) {
  const client = useQueryClient();
  const active = useQuery(activeBookingsQueryOptions());
  const recent = useQuery(recentLogQueryOptions());
  const [resolutionState, setResolutionState] = useState<ResolutionState>({ state: 'idle' });
  const resolutionRef = useRef(resolution);
  resolutionRef.current = resolution;
  const askRef = useRef<(() => void) | null>(null);

  useEffect(() => {
    if (active.data) store.loadActive(active.data);
  }, [store, active.data]);

  useEffect(() => {
    if (recent.data) store.loadLog(recent.data);
  }, [store, recent.data]);

  useEffect(() => {
    const socket = connectSocket();
    const ask = () => {
      if (!socket.connected) return;
      setResolutionState({ state: 'asking' });
      socket.timeout(5000).emit('console', { resolution: resolutionRef.current }, (error: Error | null, ack?: { ok?: boolean; error?: { code?: string } | string }) => {
        if (error) setResolutionState({ state: 'refused', code: 'unavailable' });
        else if (ack && 'error' in ack && ack.error) setResolutionState({ state: 'refused', code: typeof ack.error === 'string' ? ack.error : (ack.error.code ?? 'internal_error') });
        else setResolutionState({ state: 'idle' });
      });
    };
    const handlers: Record<string, (payload: never) => void> = {
      drivers: (payload: unknown) => store.receiveDrivers(payload),
      dispatch: (payload: DispatchEntry) => {
        store.receiveDispatch(payload);
        // An open timeline reads its booking's entries again (others are only marked stale).
        if (payload?.booking) void client.invalidateQueries({ queryKey: dispatchKeys.timeline(payload.booking), exact: true });
      },
      booking: (payload: Booking) => store.receiveBooking(payload),
      console: (payload: ConsoleEvent) => store.receiveConsole(payload),
      // Cells of the resolution left behind may still be on their way: not drawn.
      hexes: (payload: HexesEvent) => {
        if (payload?.resolution === undefined || payload.resolution === resolutionRef.current) store.receiveHexes(payload);
      },
    };
    // After a reconnection the offers and bookings may have moved on: read them again.
    const onConnect = () => {
      ask();
      void client.invalidateQueries({ queryKey: dispatchKeys.active });
      void client.invalidateQueries({ queryKey: dispatchKeys.recentLog });
    };
    for (const [event, handler] of Object.entries(handlers)) socket.on(event, handler as (...args: unknown[]) => void);
    socket.on('connect', onConnect);
    ask();
    const ticker = setInterval(() => store.tick(), 1000);
    // The resolution changes without a new subscription.
    askRef.current = ask;
    return () => {
      clearInterval(ticker);
      socket.off('connect', onConnect);
      for (const [event, handler] of Object.entries(handlers)) socket.off(event, handler as (...args: unknown[]) => void);
      askRef.current = null;
    };
  }, [store, client]);

  const asked = useRef(resolution);
  useEffect(() => {
    if (asked.current === resolution) return;
    asked.current = resolution;
    askRef.current?.();
  }, [resolution]);

  return { active, resolutionState };
}
