// The panel's money screens (spec §2 "/earningreports", "/driverearning",
// "/addtowallet", "/withdraws"; §5 "Wallet and withdraw"): the two earnings
// reports paged by the server, the withdraw requests and completing them,
// and an admin's wallet credit.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { PageAnswer, PageParams } from '@/components/panel/panel-table';
import { api, apiRequest } from '@/lib/api-client';
import type { WithdrawRequest } from '@/types/api';

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

export interface WalletCredit {
  applied: boolean;
  user: string;
  walletBalance: number;
}

/** Credits a wallet once per `key`: a retry after a lost answer sends the
 * same key, and the server moves the money once (DESIGN.md invariant 4). */
export function creditWallet(user: string, amount: number, key: string) {
  return apiRequest<WalletCredit>(`/users/${user}/wallet/credit`, {
    method: 'POST',
    body: { amount },
    headers: { 'Idempotency-Key': key },
  });
}

export function useCreditWallet() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ user, amount, key }: { user: string; amount: number; key: string }) => creditWallet(user, amount, key),
    meta: { handlesErrors: true },
    onSuccess: (_, { user }) => client.invalidateQueries({ queryKey: ['wallet', user] }),
  });
}
