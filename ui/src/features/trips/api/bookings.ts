import { queryOptions, replaceEqualDeep, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, isApiError } from '@/lib/api-client';
import { newestBooking, newestBookingPage } from '@/lib/booking-version';
import { queryKeys } from '@/lib/query-keys';
import type { Booking, CancellationReason, PaymentMode, Tracking } from '@/types/api';
import type { Page } from '@/types/app';

export const BOOKINGS_PAGE_SIZE = 50;

export function getBookings(after?: string | null) {
  return api.get<Page<Booking>>('/bookings', { limit: BOOKINGS_PAGE_SIZE, after: after ?? undefined });
}

// A read that crossed a socket event on the way keeps the newer rows.
export const bookingsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.bookings.list(),
    queryFn: () => getBookings(),
    structuralSharing: (current, incoming) =>
      replaceEqualDeep(current, newestBookingPage(current as Page<Booking> | undefined, incoming as Page<Booking>)),
  });

export function useBookings() {
  return useQuery(bookingsQueryOptions());
}

/** Appends the next page to the cached list. */
export async function loadMoreBookings(client: QueryClient) {
  const current = client.getQueryData<Page<Booking>>(queryKeys.bookings.list());
  if (!current?.next) return;
  const page = await getBookings(current.next);
  client.setQueryData<Page<Booking>>(queryKeys.bookings.list(), (list) => ({
    items: [...(list?.items ?? []), ...page.items.filter((item) => !list?.items.some((known) => known.id === item.id))],
    next: page.next,
  }));
}

export function getBooking(id: string) {
  return api.get<Booking>(`/bookings/${id}`);
}

export const bookingQueryOptions = (id: string) =>
  queryOptions({
    queryKey: queryKeys.bookings.detail(id),
    queryFn: () => getBooking(id),
    structuralSharing: (current, incoming) => replaceEqualDeep(current, newestBooking(current as Booking | undefined, incoming as Booking)),
  });

export function useBooking(id: string | null | undefined) {
  return useQuery({ ...bookingQueryOptions(id ?? ''), enabled: Boolean(id) });
}

export function getTracking(id: string) {
  return api.get<Tracking>(`/bookings/${id}/tracking`);
}

export const trackingQueryOptions = (id: string) =>
  queryOptions({ queryKey: queryKeys.tracking(id), queryFn: () => getTracking(id) });

export function useTracking(id: string, enabled: boolean) {
  return useQuery({ ...trackingQueryOptions(id), enabled });
}

/** Used until the server serves the admins' cancellation reasons (spec §3). */
export const BUILT_IN_CANCEL_REASONS = [
  'cancel.reason_too_long',
  'cancel.reason_changed_plans',
  'cancel.reason_mistake',
  'cancel.reason_another_ride',
  'cancel.reason_other',
];

export interface CancelReasonOption {
  /** Sent to the server. */
  value: string;
  /** A translation key when `builtIn`, else the admin's text. */
  label: string;
  builtIn: boolean;
}

export async function getCancelReasons(): Promise<CancelReasonOption[]> {
  try {
    const answer = await api.get<(CancellationReason | string)[] | { items: (CancellationReason | string)[] }>('/cancelreasons');
    const list = Array.isArray(answer) ? answer : (answer.items ?? []);
    const reasons = list.map((reason) => (typeof reason === 'string' ? reason : reason.label)).filter(Boolean);
    if (reasons.length > 0) return reasons.map((reason) => ({ value: reason, label: reason, builtIn: false }));
  } catch (error) {
    if (!(isApiError(error) && (error.missingRoute || error.status === 404))) throw error;
  }
  return BUILT_IN_CANCEL_REASONS.map((key) => ({ value: key, label: key, builtIn: true }));
}

export const cancelReasonsQueryOptions = () =>
  queryOptions({ queryKey: queryKeys.cancelReasons, queryFn: getCancelReasons, staleTime: 10 * 60_000 });

export function useCancelReasons(enabled: boolean) {
  return useQuery({ ...cancelReasonsQueryOptions(), enabled });
}

/** A booking just changed: the detail and its row in the list. */
export function storeBooking(client: QueryClient, booking: Booking) {
  // The socket may have brought a later change before this reply.
  client.setQueryData<Booking>(queryKeys.bookings.detail(booking.id), (current) => newestBooking(current, booking));
  client.setQueriesData<Page<Booking>>({ queryKey: queryKeys.bookings.list() }, (page) =>
    page?.items ? { ...page, items: page.items.map((item) => (item.id === booking.id ? newestBooking(item, booking) : item)) } : page,
  );
}

export type BookingCommand =
  | { action: 'arrive' }
  | { action: 'start'; otp?: number }
  | { action: 'reach' }
  /** No mode: the driver finishes a prepaid booking, with nothing to collect. */
  | { action: 'pay'; payment_mode?: PaymentMode }
  | { action: 'rate'; rating: number }
  /** Rating is optional: the rider closes the trip without one. */
  | { action: 'rate'; skip: true }
  | { action: 'cancel'; reason: string };

export function runBookingCommand(id: string, command: BookingCommand) {
  const { action, ...body } = command;
  return api.post<Booking>(`/bookings/${id}/${action}`, body);
}

/** The state machine's commands (DESIGN.md contract); errors are shown by the caller. */
export function useBookingCommand(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (command: BookingCommand) => runBookingCommand(id, command),
    meta: { handlesErrors: true },
    onSuccess: (booking) => {
      storeBooking(client, booking);
      void client.invalidateQueries({ queryKey: queryKeys.bookings.list() });
    },
  });
}

/** Cancels any booking with a reason (the panel's row action); errors are shown by the caller. */
export function useCancelBooking() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, reason }: { id: string; reason: string }) => runBookingCommand(id, { action: 'cancel', reason }),
    meta: { handlesErrors: true },
    onSuccess: (booking) => storeBooking(client, booking),
  });
}

/** What POST /bookings/{id}/rebook answers: the new booking, or (as the
 * contract of issue #34 words it) `{booking_id, mainData}`. */
export type RebookAnswer = Booking | { booking_id: string; mainData?: Partial<Booking> };

/** The id of the booking a rebook made, whichever shape the answer has. */
export function rebookedId(answer: RebookAnswer): string {
  return 'booking_id' in answer ? answer.booking_id : answer.id;
}

/** A NEW booking of the same trip (after no driver took this one); errors are shown by the caller. */
export function useRebook(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => rebookedId(await api.post<RebookAnswer>(`/bookings/${id}/rebook`, {})),
    meta: { handlesErrors: true },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.bookings.list() });
    },
  });
}
