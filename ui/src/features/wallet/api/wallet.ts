import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { Wallet, WithdrawRequest } from '@/types/api';
import type { Page } from '@/types/app';

export function getWallet(userId: string) {
  return api.get<Wallet>(`/users/${userId}/wallet`);
}

export const walletQueryOptions = (userId: string) =>
  queryOptions({ queryKey: queryKeys.wallet(userId), queryFn: () => getWallet(userId) });

export function useWallet(userId: string) {
  return useQuery(walletQueryOptions(userId));
}

/** The caller's own withdraw requests, newest first (spec §9). */
export function getWithdraws() {
  return api.get<Page<WithdrawRequest>>('/withdraws', { limit: 20 });
}

export const withdrawsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: queryKeys.withdraws(userId), queryFn: getWithdraws });

export function useWithdraws(userId: string, enabled: boolean) {
  return useQuery({ ...withdrawsQueryOptions(userId), enabled });
}

/** A withdraw request (spec §3): the server debits the wallet and stores it. */
export function requestWithdraw(amount: number) {
  return api.post<{ withdraw: WithdrawRequest; walletBalance: number }>('/withdraws', { amount });
}

export function useRequestWithdraw(userId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: requestWithdraw,
    meta: { handlesErrors: true },
    onSuccess: (created) => {
      client.setQueryData<Wallet>(queryKeys.wallet(userId), (wallet) => (wallet ? { ...wallet, walletBalance: created.walletBalance } : wallet));
      client.setQueryData<Page<WithdrawRequest>>(queryKeys.withdraws(userId), (page) =>
        page ? { ...page, items: [created.withdraw, ...page.items.filter((item) => item.id !== created.withdraw.id)] } : page,
      );
      void client.invalidateQueries({ queryKey: queryKeys.wallet(userId) });
      void client.invalidateQueries({ queryKey: queryKeys.withdraws(userId) });
    },
  });
}
