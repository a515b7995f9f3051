// The console's REST reads and writes (docs/architecture.md "Live dispatch
// console"): the starting state, a booking's tracked path for replay, a
// message to a driver, the fleets for the log filter and the drivers' names.
import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import type { PageAnswer } from '@/components/panel/panel-table-model';
import { api, apiRequest } from '@/lib/api-client';
import type { DispatchEntry } from '@/lib/dispatch-entries';
import { queryKeys } from '@/lib/query-keys';
import type { Booking, Tracking, User } from '@/types/api';
import { LOG_LIMIT } from '../lib/log';
import type { ActiveBooking } from '../lib/types';

export const dispatchKeys = {
  active: ['dispatch', 'active'] as const,
  recentLog: ['dispatch', 'log'] as const,
  /** A booking's timeline is the shared query (`@/lib/dispatch-timeline`). */
  timeline: queryKeys.dispatchTimeline,
  fleets: ['dispatch', 'fleets'] as const,
  route: (booking: string, driver: string) => ['dispatch', 'route', booking, driver] as const,
};

/** A list may come bare or wrapped (`{items}`, `{entries}`): both are read. */
function listOf<T>(payload: unknown, ...names: string[]): T[] {
  if (Array.isArray(payload)) return payload as T[];
  if (payload && typeof payload === 'object') {
    for (const name of names) {
      const value = (payload as Record<string, unknown>)[name];
      if (Array.isArray(value)) return value as T[];
    }
  }
  return [];
}

export const activeBookingsQueryOptions = () =>
  queryOptions({
    queryKey: dispatchKeys.active,
    queryFn: async ({ signal }) => listOf<ActiveBooking>(await api.get<unknown>('/dispatch/active', undefined, signal), 'items', 'bookings'),
    // Read once per (re)connection; the socket keeps it current after that.
    staleTime: Infinity,
  });

/** The newest log entries from storage: a console opened (or back) later
 * starts with the recent past; the socket adds what comes after. */
export const recentLogQueryOptions = () =>
  queryOptions({
    queryKey: dispatchKeys.recentLog,
    queryFn: async ({ signal }) => listOf<DispatchEntry>(await api.get<unknown>('/dispatch/log', { limit: LOG_LIMIT }, signal), 'items'),
    staleTime: Infinity,
    // Without the backlog the console still runs on the socket.
    meta: { handlesErrors: true },
  });

/** The booking itself (shared with the rest of the app's cache, which the socket keeps current). */
export function useConsoleBooking(booking: string | null, known: Booking | null) {
  return useQuery({
    queryKey: queryKeys.bookings.detail(booking ?? ''),
    queryFn: ({ signal }) => api.get<Booking>(`/bookings/${booking}`, undefined, signal),
    enabled: Boolean(booking),
    initialData: known ?? undefined,
    staleTime: 5_000,
  });
}

export function useReplayTracking(booking: string | null) {
  return useQuery({
    queryKey: queryKeys.tracking(booking ?? ''),
    queryFn: ({ signal }) => api.get<Tracking>(`/bookings/${booking}/tracking`, undefined, signal),
    enabled: Boolean(booking),
  });
}

export function useSendDriverMessage() {
  return useMutation({
    mutationFn: ({ driver, message }: { driver: string; message: string }) =>
      api.post<unknown>(`/drivers/${driver}/message`, { message }),
    meta: { handlesErrors: true },
  });
}

/** The fleet admins, for an admin's fleet filter. */
export function useFleets(enabled: boolean) {
  return useQuery({
    queryKey: dispatchKeys.fleets,
    queryFn: ({ signal }) => api.get<PageAnswer<User>>('/users', { role: 'fleetadmin', limit: 500 }, signal),
    enabled,
    staleTime: 5 * 60_000,
    select: (page) => page.items,
  });
}

/** The drivers named (their names and fleets), for the console's directory. */
export async function readDrivers(ids: string[]) {
  const page = await api.get<PageAnswer<User>>('/users', { ids: ids.join(',') });
  return page.items;
}

/** How often the road from a driver to their pickup is asked again (they may leave it). */
const ROUTE_REFRESH_MS = 30_000;

/** The road route from `from` (read when fetched: the driver moves) to the
 * pickup, as [lng, lat] points. */
export function usePickupRoute(
  key: { booking: string; driver: string } | null,
  from: () => { lat: number; lng: number } | null,
  pickup: { lat: number; lng: number } | null,
) {
  return useQuery({
    queryKey: dispatchKeys.route(key?.booking ?? '', key?.driver ?? ''),
    queryFn: async ({ signal }) => {
      const start = from();
      if (!start || !pickup) return null;
      const answer = await apiRequest<{ coords?: { latitude: number; longitude: number }[] }>('/geo/directions', {
        method: 'POST',
        body: { start: { lat: start.lat, lng: start.lng }, dest: { lat: pickup.lat, lng: pickup.lng } },
        signal,
      });
      return (answer.coords ?? []).map((point) => [point.longitude, point.latitude] as [number, number]);
    },
    enabled: Boolean(key && pickup),
    refetchInterval: ROUTE_REFRESH_MS,
    meta: { handlesErrors: true },
  });
}
