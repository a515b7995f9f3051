// Issue #34: what the panel reads and does on one booking's page (its
// ledger, the people on it, settling, completing, refunding) and the report
// of money owed. Failures are shown the app's one way (the mutation cache's
// toast); each success stores the booking the server answered and reads
// again what the change touched.
import { queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { PageAnswer } from '@/components/panel/panel-table-model';
import { api, apiRequest } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';
import type { Booking, BookingRefunds, LedgerEntry, OwedReport, RefundDestination, RefundMade, User } from '@/types/api';
import { storeBooking } from './bookings';

export const ledgerQueryOptions = (id: string) =>
  queryOptions({
    queryKey: queryKeys.bookingLedger(id),
    queryFn: async ({ signal }) => (await api.get<{ items: LedgerEntry[] }>(`/bookings/${id}/ledger`, undefined, signal)).items ?? [],
  });

export function useBookingLedger(id: string) {
  return useQuery(ledgerQueryOptions(id));
}

/** The accounts a booking names (its driver, the driver's fleet admin), read
 * in one call; the server leaves out those the viewer may not list. */
export function useBookingPeople(ids: string[]) {
  const wanted = [...new Set(ids.filter(Boolean))].sort();
  return useQuery({
    queryKey: ['users', 'ids', wanted],
    queryFn: async ({ signal }) => (await api.get<PageAnswer<User>>('/users', { ids: wanted.join(',') }, signal)).items,
    enabled: wanted.length > 0,
    staleTime: 60_000,
  });
}

export const owedReportQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.owedReport,
    queryFn: ({ signal }) => api.get<OwedReport>('/reports/owed', undefined, signal),
  });

export function useOwedReport() {
  return useQuery(owedReportQueryOptions());
}

/** After a money change: the booking as answered, and what it moved. */
function afterMoneyChange(client: QueryClient, id: string, answer: unknown) {
  if (answer && typeof answer === 'object' && (answer as Booking).id === id && 'status' in answer) storeBooking(client, answer as Booking);
  else void client.invalidateQueries({ queryKey: queryKeys.bookings.detail(id) });
  void client.invalidateQueries({ queryKey: queryKeys.bookingLedger(id) });
  void client.invalidateQueries({ queryKey: queryKeys.owedReport });
}

export type SettleMode = 'cash' | 'card';

/** REACHED or PENDING → PAID: `card` marks it paid outside the app, `cash` settles it in cash to the driver. */
export function useSettleBooking() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, mode }: { id: string; mode: SettleMode }) => api.post<Booking>(`/bookings/${id}/settle`, { mode }),
    onSuccess: (answer, { id }) => afterMoneyChange(client, id, answer),
  });
}

/** PAID → COMPLETE without a rating. */
export function useCompleteBooking() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.post<Booking>(`/bookings/${id}/complete`, {}),
    onSuccess: (answer, id) => afterMoneyChange(client, id, answer),
  });
}

/** `GET /bookings/{id}/refunds`: the booking's refunds, oldest first, what is
 * left to refund, and how much of it may go back through its gateway. */
export const refundsQueryOptions = (id: string) =>
  queryOptions({
    queryKey: queryKeys.bookingRefunds(id),
    queryFn: ({ signal }) => api.get<BookingRefunds>(`/bookings/${id}/refunds`, undefined, signal),
  });

export function useBookingRefunds(id: string, enabled = true) {
  return useQuery({ ...refundsQueryOptions(id), enabled });
}

export interface RefundRequest {
  id: string;
  amount: number;
  destination: RefundDestination;
  reason: string;
  /** One per dialog: a retry of the same refund is applied once. */
  idempotencyKey: string;
}

/** Gives a paid booking's money back, to the card through its gateway or to
 * the rider's wallet. The dialog shows its refusals in place. */
export function useRefundBooking() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, idempotencyKey, ...body }: RefundRequest) =>
      apiRequest<RefundMade>(`/bookings/${id}/refund`, { method: 'POST', body, headers: { 'Idempotency-Key': idempotencyKey } }),
    meta: { handlesErrors: true },
    onSuccess: (answer, { id }) => {
      afterMoneyChange(client, id, answer.booking);
      void client.invalidateQueries({ queryKey: queryKeys.bookingRefunds(id) });
    },
    // A gateway that declined leaves a failed refund on the list.
    onError: (_error, { id }) => void client.invalidateQueries({ queryKey: queryKeys.bookingRefunds(id) }),
  });
}
