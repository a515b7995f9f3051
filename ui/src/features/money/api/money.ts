// The panel's money screens (spec §2 "/earningreports", "/driverearning",
// "/addtowallet", "/withdraws"; §5 "Wallet and withdraw"): the two earnings
// reports paged by the server, the withdraw requests and completing them,
// and an admin's wallet credit, debit and adjustment.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { PageAnswer, PageParams } from '@/components/panel/panel-table';
import { api, apiRequest } from '@/lib/api-client';
import type { Wallet, WalletCredited, WithdrawRequest } from '@/types/api';

export type ReportKind = 'earnings' | 'driver';

export const REPORT_PATHS: Record<ReportKind, string> = {
  earnings: '/reports/earnings',
  driver: '/reports/driver-earnings',
};

/** A calendar filter: a year, and a month of it; or a range of days
 * (`from`, `until`: local dates, both included); empty for all time. */
export interface Period {
  year: number | '';
  month: number | '';
  from?: string;
  until?: string;
}

/** Local midnight of a `yyyy-mm-dd` day, `days` later. */
function dayStart(day: string, days = 0) {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(year, month - 1, date + days).getTime();
}

export function periodQuery(period: Period) {
  if (period.from || period.until) {
    return {
      ...(period.from ? { from: dayStart(period.from) } : {}),
      // `until` is exclusive on the server: the day after the last one shown.
      ...(period.until ? { until: dayStart(period.until, 1) } : {}),
    };
  }
  if (period.year === '') return {};
  return period.month === '' ? { year: period.year } : { year: period.year, month: period.month };
}

export const reportKey = (kind: ReportKind, period: Period) => ['reports', kind, periodQuery(period)] as const;

/** One page of a report: the server answers `rows`, the grid reads `items`. */
export async function fetchReportPage<Row>(kind: ReportKind, period: Period, params: PageParams, signal?: AbortSignal): Promise<PageAnswer<Row>> {
  const answer = await api.get<{ rows: Row[]; next: string | null }>(
    REPORT_PATHS[kind],
    { ...periodQuery(period), limit: params.limit, after: params.after },
    signal,
  );
  return { items: answer.rows, next: answer.next ?? null };
}

export const withdrawsKey = ['withdraws', 'panel'] as const;

export function fetchWithdrawsPage(params: PageParams, signal?: AbortSignal) {
  return api.get<PageAnswer<WithdrawRequest>>('/withdraws', { limit: params.limit, after: params.after }, signal);
}

export function useCompleteWithdraw() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.post<WithdrawRequest>(`/withdraws/${id}/complete`),
    meta: { handlesErrors: true },
    onSuccess: () => client.invalidateQueries({ queryKey: withdrawsKey }),
  });
}

/** What an admin does to a wallet: credit an amount, debit an amount, or
 * adjust it to a balance (the last two with a reason, issue #37). */
export type WalletMove =
  | { kind: 'credit'; user: string; amount: number; key: string }
  | { kind: 'debit'; user: string; amount: number; reason: string; key: string }
  | { kind: 'adjust'; user: string; balance: number; reason: string; key: string };

/** Moves a wallet once per `key`: a retry after a lost answer sends the
 * same key, and the server moves the money once (DESIGN.md invariant 4). */
export function moveWallet(move: WalletMove) {
  const { kind, user, key, ...body } = move;
  return apiRequest<WalletCredited>(`/users/${encodeURIComponent(user)}/wallet/${kind}`, {
    method: 'POST',
    body,
    headers: { 'Idempotency-Key': key },
  });
}

/** A user's balance as the server has it now (their wallet, without its history). */
export function useWalletBalance(user: string | null) {
  return useQuery({
    queryKey: ['wallet', user, 'balance'],
    queryFn: async ({ signal }) => (await api.get<Wallet>(`/users/${encodeURIComponent(user ?? '')}/wallet`, { limit: 1 }, signal)).walletBalance,
    enabled: Boolean(user),
    staleTime: 0,
  });
}

/** The screen shows refusals itself (the shared error display). */
export function useMoveWallet() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: moveWallet,
    meta: { handlesErrors: true },
    onSuccess: (_, { user }) => client.invalidateQueries({ queryKey: ['wallet', user] }),
  });
}
