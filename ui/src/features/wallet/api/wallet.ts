import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { Wallet } from '@/types/api';

export function getWallet(userId: string) {
  return api.get<Wallet>(`/users/${userId}/wallet`);
}

export const walletQueryOptions = (userId: string) =>
  queryOptions({ queryKey: queryKeys.wallet(userId), queryFn: () => getWallet(userId) });

export function useWallet(userId: string) {
  return useQuery(walletQueryOptions(userId));
}

/** A withdraw request (spec §3); the route comes with the payments issue. */
export function requestWithdraw(amount: number) {
  return api.post<unknown>('/withdraws', { amount });
}

export function useRequestWithdraw(userId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: requestWithdraw,
    meta: { handlesErrors: true },
    onSuccess: () => void client.invalidateQueries({ queryKey: queryKeys.wallet(userId) }),
  });
}
