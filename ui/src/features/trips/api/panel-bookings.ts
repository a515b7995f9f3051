// The panel's bookings (spec §2 "Bookings", §4 "Panel actions"): pages from
// the server for the data grid, the drivers an admin may assign, and assigning.
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { PageAnswer, PageParams } from '@/components/panel/panel-table';
import { DEFAULT_PAGE_SIZE, FIRST_PAGE, pageParams, type SortOrder } from '@/components/panel/panel-table-model';
import { api } from '@/lib/api-client';
import { isUnassigned } from '@/lib/booking-state';
import { queryKeys } from '@/lib/query-keys';
import type { AssignCandidates, Booking } from '@/types/api';
import { storeBooking } from './bookings';

/** Under the bookings list key, so socket events update the grid's rows too. */
export const panelBookingsKey = (status: string) => [...queryKeys.bookings.list(), 'panel', { status }] as const;

/** Grid field → the server's sort name (the columns the server sorts by an index). */
export const BOOKING_SORT_FIELDS: Record<string, string> = {
  tripdate: 'tripdate',
  bookingDate: 'bookingDate',
  reference: 'reference',
  status: 'status',
  customer_name: 'customer_name',
  driver_name: 'driver_name',
  carType: 'carType',
  trip_cost: 'trip_cost',
};

/** Newest trip first: what the grid shows until a header is clicked. */
export const DEFAULT_BOOKING_SORT: { field: string; order: SortOrder } = { field: 'tripdate', order: 'desc' };

/** Asks for the grid's first page before the screen is opened (the pointer is
 * on its menu entry, or the panel is idle), under the very key the grid reads,
 * so the click draws rows at once instead of mounting, then fetching. */
export function prefetchPanelBookings(client: QueryClient) {
  const params = pageParams({ pageSize: DEFAULT_PAGE_SIZE, cursors: FIRST_PAGE, page: 0, search: '', sort: DEFAULT_BOOKING_SORT, sortFields: BOOKING_SORT_FIELDS });
  return client.prefetchQuery({
    queryKey: [...panelBookingsKey(''), params],
    queryFn: ({ signal }) => fetchBookingsPage('', params, signal),
  });
}

/** The server's filter for the grid's: 'unassigned' asks for NEW bookings,
 * the rest of its rule is the grid's (below). */
export function bookingsExportQuery(status: string) {
  if (status === 'active') return { active: true };
  if (status === 'unassigned') return { status: 'NEW' };
  return status ? { status } : {};
}

/** `status`: '' for all, 'active', 'unassigned', or one status. Unassigned
 * (contract #34, a rule of the UI) is a NEW booking that is not a Book Later
 * one still in the future: the server sends the NEW page, the future ones
 * are left out of it (a page may then hold fewer rows than its size). */
export async function fetchBookingsPage(status: string, params: PageParams, signal?: AbortSignal) {
  const page = await api.get<PageAnswer<Booking>>('/bookings', { ...params, ...bookingsExportQuery(status) }, signal);
  if (status !== 'unassigned') return page;
  const now = Date.now();
  return { ...page, items: page.items.filter((booking) => isUnassigned(booking, now)) };
}

export function useAssignCandidates(bookingId: string | null) {
  return useQuery({
    queryKey: ['bookings', 'candidates', bookingId],
    queryFn: ({ signal }) => api.get<AssignCandidates>(`/bookings/${bookingId}/candidates`, { limit: 20 }, signal),
    enabled: Boolean(bookingId),
    // Drivers move: a picker opened again asks again.
    staleTime: 0,
  });
}

export function useAssignDriver() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ booking, driver }: { booking: string; driver: string }) => api.post<Booking>(`/bookings/${booking}/assign`, { driver }),
    meta: { handlesErrors: true },
    onSuccess: (booking) => storeBooking(client, booking),
  });
}
