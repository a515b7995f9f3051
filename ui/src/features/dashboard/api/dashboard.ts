// The dashboard's figures (spec §2 "Dashboard"): gross earnings computed by
// the server with the engine's panel rule, the live drivers the socket's
// `drivers` feed keeps in the query cache, and the active bookings its
// `booking` events keep current (lib/active-bookings).
import { queryOptions, useQuery } from '@tanstack/react-query';
import { activeBookingsQueryOptions } from '@/lib/active-bookings';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { LiveDriver } from '@/types/app';
import type { DashboardEarnings } from '@/types/api';

export const dashboardEarningsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.dashboard.earnings,
    queryFn: ({ signal }) => api.get<DashboardEarnings>('/dashboard/earnings', undefined, signal),
    // Trips are paid all day: a minute old is fresh enough for a summary.
    refetchInterval: 60_000,
  });

export function useDashboardEarnings() {
  return useQuery(dashboardEarningsQueryOptions());
}

/** The online drivers as the last `drivers` message listed them; empty until it arrives. */
export function useLiveDrivers() {
  return useQuery({
    queryKey: queryKeys.liveDrivers,
    queryFn: () => [] as LiveDriver[],
    // Only the socket writes this list.
    staleTime: Infinity,
    select: (drivers) => (Array.isArray(drivers) ? drivers : []),
  });
}

/** Every active booking the viewer may see (a fleet admin: their fleet's). */
export function useActiveBookings() {
  return useQuery(activeBookingsQueryOptions());
}
