// The panel's users (spec §2, §5 "Admin panel", §6): pages from the server,
// the existence check before adding, add, edit, approve and delete.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { PageAnswer, PageParams } from '@/components/panel/panel-table';
import { api } from '@/lib/api-client';
import type { Role, User } from '@/types/api';

export const usersKey = (role: Role) => ['users', 'panel', role] as const;

export function fetchUsersPage(role: Role, params: PageParams, signal?: AbortSignal) {
  return api.get<PageAnswer<User>>('/users', { role, limit: params.limit, after: params.after, search: params.search }, signal);
}

export interface Exists {
  exists: boolean;
  email: boolean;
  mobile: boolean;
}

export function userExists(email: string, mobile: string) {
  return api.get<Exists>('/users/exists', { email: email || undefined, mobile: mobile || undefined });
}

function useUsersMutation<Input, Output>(run: (input: Input) => Promise<Output>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: run,
    meta: { handlesErrors: true },
    onSuccess: () => client.invalidateQueries({ queryKey: ['users'] }),
  });
}

export const useAddUser = () => useUsersMutation((body: Record<string, unknown>) => api.post<User>('/users', body));
export const useEditUser = () => useUsersMutation(({ id, body }: { id: string; body: Record<string, unknown> }) => api.patch<User>(`/users/${id}`, body));
export const useApproveUser = () => useUsersMutation((id: string) => api.post<User>(`/users/${id}/approve`));
export const useDeleteUser = () => useUsersMutation((id: string) => api.delete<{ deleted: boolean }>(`/users/${id}`));
