// Issue #33: SOS alerts. The rider or driver raises one on their trip; the
// panel lists them, takes them and resolves them with a note.
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PageAnswer, PageParams } from '@/components/panel/panel-table';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { LatLng, SosAlertShown, SosRaised } from '@/types/api';

export function raiseSos(bookingId: string, position: LatLng) {
  return api.post<SosRaised>(`/bookings/${bookingId}/sos`, { lat: position.lat, lng: position.lng });
}

export function useRaiseSos(bookingId: string) {
  return useMutation({
    mutationFn: (position: LatLng) => raiseSos(bookingId, position),
    meta: { handlesErrors: true },
  });
}

/** The alerts nobody has taken yet, for the banners: at most a page of 50. */
export const OPEN_ALERTS_SHOWN = 50;

export function openSosQueryOptions() {
  return queryOptions({
    queryKey: queryKeys.sos.open,
    queryFn: ({ signal }) =>
      api.get<PageAnswer<SosAlertShown>>('/sos', { state: 'open', limit: OPEN_ALERTS_SHOWN }, signal).then((page) => page.items),
    // The socket's `sos` event keeps it current; this is the fallback.
    refetchInterval: 60_000,
  });
}

export function useOpenSos(enabled: boolean) {
  return useQuery({ ...openSosQueryOptions(), enabled });
}

export function fetchSosPage(params: PageParams, signal?: AbortSignal) {
  return api.get<PageAnswer<SosAlertShown>>('/sos', { limit: params.limit, after: params.after }, signal);
}

export function useSosAlert(id: string | null) {
  return useQuery({
    queryKey: queryKeys.sos.detail(id ?? ''),
    queryFn: ({ signal }) => api.get<SosAlertShown>(`/sos/${id}`, undefined, signal),
    enabled: Boolean(id),
  });
}

/** Writes an alert the server answered everywhere it is shown. */
function useStoreAlert() {
  const client = useQueryClient();
  return (alert: SosAlertShown) => {
    client.setQueryData<SosAlertShown[]>(queryKeys.sos.open, (open) => open?.filter((item) => item.id !== alert.id || alert.state === 'open'));
    client.setQueryData(queryKeys.sos.detail(alert.id), alert);
    void client.invalidateQueries({ queryKey: queryKeys.sos.list });
  };
}

export function useTakeSos() {
  const store = useStoreAlert();
  return useMutation({
    mutationFn: (id: string) => api.post<SosAlertShown>(`/sos/${id}/take`),
    meta: { handlesErrors: true },
    onSuccess: store,
  });
}

export function useResolveSos() {
  const store = useStoreAlert();
  return useMutation({
    mutationFn: ({ id, note }: { id: string; note: string }) => api.post<SosAlertShown>(`/sos/${id}/resolve`, { note }),
    meta: { handlesErrors: true },
    onSuccess: store,
  });
}
