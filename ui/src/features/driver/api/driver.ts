import { queryOptions, replaceEqualDeep, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, isApiError } from '@/lib/api-client';
import { newestBooking } from '@/lib/booking-version';
import { queryKeys } from '@/lib/query-keys';
import { emitLocation, type LocationPayload } from '@/lib/socket';
import type { Booking, SuggestedAreaResponse, User } from '@/types/api';
import type { Offer } from '@/types/app';
import type { SendOutcome } from '../lib/position-outbox';

export function setDriverStatus({ online, location }: { online: boolean; location?: LocationPayload | null }) {
  return api.post<{ driverActiveStatus: boolean }>('/drivers/me/status', { driverActiveStatus: online, ...(online && location ? { location } : {}) });
}

export function useDriverStatus() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: setDriverStatus,
    onSuccess: ({ driverActiveStatus }) => {
      client.setQueryData<User | null>(queryKeys.me, (user) => (user ? { ...user, driverActiveStatus } : user));
      if (!driverActiveStatus) client.setQueryData<Offer[]>(queryKeys.tasks, []);
      else void client.invalidateQueries({ queryKey: queryKeys.tasks });
    },
  });
}

/** Over the socket when it is connected (with its ack), else over REST: the
 * server treats both the same. `failed` when neither answered (the fix is
 * kept for later), `refused` when the server said no (it never will take it). */
export async function sendLocation(payload: LocationPayload): Promise<SendOutcome> {
  const acked = emitLocation(payload);
  if (acked) {
    const answer = await acked;
    if ('ok' in answer) return 'sent';
    if (answer.error.code !== 'unavailable' && answer.error.code !== 'internal_error') return 'refused';
  }
  try {
    await api.post('/drivers/me/location', payload);
    return 'sent';
  } catch (error) {
    return isApiError(error) && error.status >= 400 && error.status < 500 && error.status !== 429 ? 'refused' : 'failed';
  }
}

export async function getTasks(): Promise<Offer[]> {
  const answer = await api.get<{ items: Booking[] }>('/tasks');
  return (answer.items ?? []).map((booking) => ({ booking, deadline: booking.dispatch?.deadline ?? null }));
}

/** A read of /tasks does not know the distances the socket's offers brought: keep them. */
export function keepOfferDistances(current: Offer[] | undefined, incoming: Offer[]): Offer[] {
  const known = new Map((current ?? []).map((offer) => [offer.booking.id, offer.distanceKm]));
  return incoming.map((offer) => {
    const distanceKm = offer.distanceKm ?? known.get(offer.booking.id) ?? null;
    return distanceKm === (offer.distanceKm ?? null) ? offer : { ...offer, distanceKm };
  });
}

export const tasksQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.tasks,
    queryFn: getTasks,
    structuralSharing: (current, incoming) => replaceEqualDeep(current, keepOfferDistances(current as Offer[] | undefined, incoming as Offer[])),
  });

export function useTasks(enabled: boolean) {
  return useQuery({ ...tasksQueryOptions(), enabled });
}

export function acceptOffer(id: string) {
  return api.post<Booking>(`/bookings/${id}/accept`);
}

export function declineOffer(id: string) {
  return api.post<Booking>(`/bookings/${id}/decline`);
}

function dropOffer(client: ReturnType<typeof useQueryClient>, id: string) {
  client.setQueryData<Offer[]>(queryKeys.tasks, (offers) => offers?.filter((offer) => offer.booking.id !== id));
}

export function useAcceptOffer() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: acceptOffer,
    meta: { handlesErrors: true },
    onSuccess: (booking) => {
      dropOffer(client, booking.id);
      client.setQueryData<Booking>(queryKeys.bookings.detail(booking.id), (current) => newestBooking(current, booking));
      void client.invalidateQueries({ queryKey: queryKeys.bookings.list() });
    },
    onError: (error, id) => {
      // A lost race or a lapsed offer: it is no longer ours to take.
      if (isApiError(error) && (error.status === 409 || error.status === 403 || error.status === 404)) dropOffer(client, id);
    },
  });
}

export function useDeclineOffer() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: declineOffer,
    onSettled: (_booking, _error, id) => dropOffer(client, id),
  });
}

/** How often a free driver's suggested area is asked again. */
export const AREA_REFRESH_MS = 60_000;

export function getSuggestedArea() {
  return api.get<SuggestedAreaResponse>('/drivers/me/area').then((answer) => answer.area ?? null);
}

/** Where riders are expected near the driver while they are online and free; null when nowhere near beats where they are. */
export function useSuggestedArea(enabled: boolean) {
  return useQuery({ queryKey: queryKeys.driverArea, queryFn: getSuggestedArea, enabled, refetchInterval: AREA_REFRESH_MS });
}

/** The road route the simulated car follows. */
export function getRoute(start: { lat: number; lng: number }, dest: { lat: number; lng: number }) {
  return api.post<{ polylinePoints: string; coords: { latitude: number; longitude: number }[] }>('/geo/directions', {
    start: { lat: start.lat, lng: start.lng },
    dest: { lat: dest.lat, lng: dest.lng },
  });
}
