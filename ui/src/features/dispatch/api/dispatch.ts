// The console's REST reads and writes (docs/architecture.md "Live dispatch
// console"): the starting state, a booking's dispatch timeline, its tracked
// path for replay, a message to a driver, and the fleets for the log filter.
import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import type { PageAnswer } from '@/components/panel/panel-table-model';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { Booking, Tracking, User } from '@/types/api';
import type { ActiveBooking, DispatchEntry } from '../lib/types';

export const dispatchKeys = {
  active: ['dispatch', 'active'] as const,
  timeline: (booking: string) => ['dispatch', 'timeline', booking] as const,
  fleets: ['dispatch', 'fleets'] as const,
  fleetDrivers: ['dispatch', 'fleet-drivers'] as const,
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

export const timelineQueryOptions = (booking: string) =>
  queryOptions({
    queryKey: dispatchKeys.timeline(booking),
    queryFn: async ({ signal }) =>
      listOf<DispatchEntry>(await api.get<unknown>(`/bookings/${booking}/dispatch`, undefined, signal), 'items', 'entries', 'events'),
  });

export function useTimeline(booking: string | null) {
  return useQuery({ ...timelineQueryOptions(booking ?? ''), enabled: Boolean(booking) });
}

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

/** At most this many pages of drivers are read to learn their fleets. */
const FLEET_PAGES = 40;

/**
 * Each driver's fleet admin, for filtering the log by fleet: dispatch
 * entries name drivers, not fleets, so the drivers are read (500 a page)
 * the first time an admin picks a fleet.
 */
export function useDriverFleets(enabled: boolean) {
  return useQuery({
    queryKey: dispatchKeys.fleetDrivers,
    queryFn: async ({ signal }) => {
      const fleets = new Map<string, string>();
      let after: string | undefined;
      for (let page = 0; page < FLEET_PAGES; page++) {
        const answer = await api.get<PageAnswer<User>>('/users', { role: 'driver', limit: 500, after }, signal);
        for (const driver of answer.items) if (driver.fleetadmin) fleets.set(driver.id, driver.fleetadmin);
        if (!answer.next) break;
        after = answer.next;
      }
      return fleets;
    },
    enabled,
    staleTime: 5 * 60_000,
  });
}
