// The panel's catalogue lists (spec §2 "/cancelreasons", "/promos",
// "/notifications"; §7 editCancellationReason, editPromo, sendNotification,
// editNotifications): short lists the server sends whole, and their writes.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PageAnswer, PageParams } from '@/components/panel/panel-table';
import { api } from '@/lib/api-client';
import type { Promo, SentNotification } from '@/types/api';

export interface Reason {
  label: string;
  value: number;
}

const REASONS = ['catalogue', 'cancelreasons'] as const;
const PROMOS = ['catalogue', 'promos'] as const;
export const NOTIFICATIONS = ['catalogue', 'notifications'] as const;

export function useReasons() {
  return useQuery({ queryKey: REASONS, queryFn: () => api.get<Reason[]>('/cancelreasons') });
}

function useWrite<Input, Output>(key: readonly unknown[], run: (input: Input) => Promise<Output>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: run, meta: { handlesErrors: true }, onSuccess: () => client.invalidateQueries({ queryKey: key }) });
}

export const useAddReason = () => useWrite(REASONS, (label: string) => api.post<Reason[]>('/cancelreasons', { label }));
export const useEditReason = () => useWrite(REASONS, ({ index, label }: { index: number; label: string }) => api.put<Reason[]>(`/cancelreasons/${index}`, { label }));
export const useDeleteReason = () => useWrite(REASONS, (index: number) => api.delete<Reason[]>(`/cancelreasons/${index}`));

export function usePromos() {
  return useQuery({ queryKey: PROMOS, queryFn: () => api.get<Promo[]>('/promos') });
}
export const useSavePromo = () =>
  useWrite(PROMOS, ({ id, body }: { id: string | null; body: Record<string, unknown> }) => (id ? api.put<Promo>(`/promos/${id}`, body) : api.post<Promo>('/promos', body)));
export const useDeletePromo = () => useWrite(PROMOS, (id: string) => api.delete<void>(`/promos/${id}`));

export function fetchNotificationsPage(params: PageParams, signal?: AbortSignal) {
  return api.get<PageAnswer<SentNotification>>('/notifications', { limit: params.limit, after: params.after }, signal);
}
export const useSendNotification = () => useWrite(NOTIFICATIONS, (body: Record<string, unknown>) => api.post<SentNotification & { recipients: number }>('/notifications', body));
export const useDeleteNotification = () => useWrite(NOTIFICATIONS, (id: string) => api.delete<void>(`/notifications/${id}`));
