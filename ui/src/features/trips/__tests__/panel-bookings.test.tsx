import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfirmHost } from '@/components/ui/confirm-dialog';
import { notificationsAtom } from '@/components/ui/notifications/notifications-store';
import { appStore } from '@/lib/store';
import { testBooking } from '@/testing/fixtures';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testSettings, testUser } from '@/testing/test-utils';
import type { Booking, Settings } from '@/types/api';
import { PanelBookings, panelActionsFor } from '../components/panel-bookings';
import { panelBookingColumns } from '../lib/panel-booking-columns';
import { prefetchPanelBookings } from '../api/panel-bookings';

const admin = testUser({ id: 'admin-1', usertype: 'admin' });
const fleet = testUser({ id: 'fleet-1', usertype: 'fleetadmin' });

function page(items: Booking[]) {
  return { 'GET /api/v1/bookings': () => ({ items, next: null }) };
}

function rowOf(reference: string) {
  return screen.getByText(reference).closest('[role="row"]') as HTMLElement;
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  appStore.set(notificationsAtom, []);
});

describe('the panel bookings grid', () => {
  it('has every column of spec §2 for admins and fleet admins, and the delivery ones only for delivery', () => {
    const taxi = panelBookingColumns({ ...testSettings, appcat: 'taxi' } as Settings, 'admin').map((column) => column.field);
    expect(taxi).toEqual(
      expect.arrayContaining(['id', 'reference', 'tripdate', 'carType', 'customer_name', 'pickupAddress', 'dropAddress', 'driver_name', 'status', 'reason', 'cancellationFee', 'otp', 'trip_cost', 'trip_start_time', 'trip_end_time', 'total_trip_time', 'distance', 'vehicle_number', 'driver_share', 'convenience_fees', 'discount_amount', 'customer_paid', 'payment_mode', 'gateway', 'cashPaymentAmount', 'cardPaymentAmount', 'usedWalletMoney']),
    );
    expect(taxi).not.toContain('deliveryPerson');
    expect(taxi).not.toContain('pickup_image');
    const fleetColumns = panelBookingColumns({ ...testSettings } as Settings, 'fleetadmin').map((column) => column.field);
    expect(fleetColumns).toContain('driver_share');
    const delivery = panelBookingColumns({ ...testSettings, appcat: 'delivery' } as Settings, 'admin').map((column) => column.field);
    expect(delivery).toEqual(
      expect.arrayContaining(['deliveryPerson', 'deliveryPersonPhone', 'pickUpInstructions', 'deliveryInstructions', 'parcelTypeSelected', 'optionSelected', 'pickup_image', 'deliver_image']),
    );
  });

  it('enables cancel and assign as spec §4 says, assign whether automatic dispatch is on or off (issue #34), and refund of what was paid (issue #37)', () => {
    const at = (status: Booking['status'], overrides: Partial<Booking> = {}) => testBooking({ status, ...overrides });
    expect(panelActionsFor(at('NEW'), 'admin', true)).toEqual({ cancel: true, assign: true, refund: false });
    expect(panelActionsFor(at('ACCEPTED'), 'admin', true)).toEqual({ cancel: true, assign: false, refund: false });
    expect(panelActionsFor(at('PAYMENT_PENDING'), 'admin', true)).toEqual({ cancel: true, assign: false, refund: false });
    for (const status of ['ARRIVED', 'STARTED', 'REACHED', 'PENDING', 'PAID', 'COMPLETE', 'CANCELLED'] as const) {
      expect(panelActionsFor(at(status), 'admin', true)).toEqual({ cancel: false, assign: false, refund: false });
    }
    expect(panelActionsFor(at('PAID', { customer_paid: 12 }), 'admin', true).refund).toBe(true);
    expect(panelActionsFor(at('COMPLETE', { customer_paid: 12, refunded: 12 }), 'admin', true).refund).toBe(false);
    // Demo mode: no cancelling by button; fleet admins never cancel, assign or refund.
    expect(panelActionsFor(at('NEW'), 'admin', false).cancel).toBe(false);
    expect(panelActionsFor(at('NEW'), 'fleetadmin', true)).toEqual({ cancel: false, assign: false, refund: false });
    expect(panelActionsFor(at('PAID', { customer_paid: 12 }), 'fleetadmin', true).refund).toBe(false);
  });

  it('shows the rows of the page with their status, money in the platform format and the export only outside demo mode', async () => {
    mockApi(page([testBooking({ id: 'b1', reference: 'AAAAAA', status: 'NEW', trip_cost: 12.5, customer_name: 'Rita Rider' })]));
    const view = renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin) });
    expect(await screen.findByText('AAAAAA')).toBeInTheDocument();
    const row = rowOf('AAAAAA');
    expect(within(row).getByTestId('status-chip')).toHaveAttribute('data-status', 'NEW');
    expect(within(row).getByText('$12.50')).toBeInTheDocument();
    expect(within(row).getByText('Rita Rider')).toBeInTheDocument();
    expect(screen.getByTestId('bookings-grid-export-csv')).toBeInTheDocument();
    view.unmount();
    mockApi(page([testBooking({ id: 'b1', reference: 'AAAAAA' })]));
    renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin, { AllowCriticalEditsAdmin: false }) });
    expect(await screen.findByText('AAAAAA')).toBeInTheDocument();
    expect(screen.queryByTestId('bookings-grid-export-csv')).not.toBeInTheDocument();
    expect(within(rowOf('AAAAAA')).getByTestId('action-cancel')).toBeDisabled();
  });

  it('gives fleet admins no row actions', async () => {
    mockApi(page([testBooking({ id: 'b1', reference: 'FLEETB', status: 'NEW' })]));
    renderWithProviders(<PanelBookings role="fleetadmin" />, { client: seededClient(fleet, { autoDispatch: false }) });
    expect(await screen.findByText('FLEETB')).toBeInTheDocument();
    expect(screen.queryByTestId('action-cancel')).not.toBeInTheDocument();
    expect(screen.queryByTestId('action-assign')).not.toBeInTheDocument();
  });

  it('cancels a new booking with the reason chosen in the dialog', async () => {
    const { calls } = mockApi({
      ...page([testBooking({ id: 'b1', reference: 'CANCEL', status: 'NEW' })]),
      'GET /api/v1/cancelreasons': () => [{ label: 'Rider no-show', value: 0 }],
      'POST /api/v1/bookings/b1/cancel': ({ body }) => testBooking({ id: 'b1', reference: 'CANCEL', status: 'CANCELLED', reason: (body as { reason: string }).reason, version: 2 }),
    });
    const user = userEvent.setup();
    renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin) });
    await screen.findByText('CANCEL');
    await user.click(within(rowOf('CANCEL')).getByTestId('action-cancel'));
    const dialog = await screen.findByTestId('cancel-dialog');
    await user.click(await within(dialog).findByLabelText('Rider no-show'));
    await user.click(within(dialog).getByTestId('cancel-confirm'));
    await waitFor(() => expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ reason: 'Rider no-show' }));
    await waitFor(() => expect(within(rowOf('CANCEL')).getByTestId('status-chip')).toHaveAttribute('data-status', 'CANCELLED'));
  });

  it('refunds a paid booking from its row with the booking page\'s dialog, after the confirm dialog', async () => {
    const paid = testBooking({ id: 'b4', reference: 'PAIDRF', status: 'PAID', customer_paid: 10, payment_mode: 'cash', customer_name: 'Rita Rider', version: 3 });
    const { calls } = mockApi({
      ...page([paid, testBooking({ id: 'b5', reference: 'NEWONE', status: 'NEW' })]),
      'GET /api/v1/bookings/b4/refunds': () => ({ items: [], totals: { paid: 10, refunded: 0, refundable: 10 }, gateway: { available: false, refundable: 0 } }),
      'POST /api/v1/bookings/b4/refund': ({ body }) => {
        const booking = { ...paid, refunded: (body as { amount: number }).amount, version: 4 };
        return { refund: { id: 'r1', booking: 'b4', user: 'user-rider-1', amount: 2.5, currency: 'USD', destination: 'wallet', reason: 'Late', status: 'done', idempotency_key: 'k', made_by: 'admin-1', created_at: 0 }, applied: true, booking, totals: { paid: 10, refunded: 2.5, refundable: 7.5 } };
      },
    });
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <PanelBookings role="admin" />
        <ConfirmHost />
      </>,
      { client: seededClient(admin) },
    );
    await screen.findByText('PAIDRF');
    expect(within(rowOf('NEWONE')).getByTestId('action-refund')).toBeDisabled();
    await user.click(within(rowOf('PAIDRF')).getByTestId('action-refund'));
    const dialog = await screen.findByTestId('refund-dialog');
    expect(dialog).toHaveTextContent('Refund booking PAIDRF');
    await waitFor(() => expect(within(dialog).getByTestId('refund-submit')).toBeEnabled());
    await user.click(within(dialog).getByTestId('refund-part'));
    await user.type(within(dialog).getByTestId('refund-amount'), '2.5');
    await user.click(within(dialog).getByTestId('refund-submit'));
    // A reason is asked for before anything is sent.
    expect(dialog).toHaveTextContent('Say why the rider is refunded.');
    await user.type(within(dialog).getByTestId('refund-reason'), 'Late');
    await user.click(within(dialog).getByTestId('refund-submit'));
    await user.click(within(await screen.findByTestId('confirm-dialog')).getByTestId('confirm-ok'));
    await waitFor(() => expect(screen.queryByTestId('refund-dialog')).not.toBeInTheDocument());
    const posted = calls.filter((call) => call.method === 'POST');
    expect(posted.map((call) => [call.path, call.body])).toEqual([['/api/v1/bookings/b4/refund', { amount: 2.5, destination: 'wallet', reason: 'Late' }]]);
    expect(posted[0].headers['idempotency-key']).toBeTruthy();
    expect(appStore.get(notificationsAtom).map((entry) => entry.message)).toContain('booking_page.refunded');
  });

  it('cancels an unpaid prepaid booking about 1.5 s after the button, with the fixed reason and no dialog', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { calls } = mockApi({
      ...page([testBooking({ id: 'b2', reference: 'UNPAID', status: 'PAYMENT_PENDING' })]),
      'POST /api/v1/bookings/b2/cancel': () => testBooking({ id: 'b2', reference: 'UNPAID', status: 'CANCELLED', version: 2 }),
    });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin) });
    await screen.findByText('UNPAID');
    await user.click(within(rowOf('UNPAID')).getByTestId('action-cancel'));
    expect(screen.queryByTestId('cancel-dialog')).not.toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1000);
    });
    expect(calls.some((call) => call.method === 'POST')).toBe(false);
    expect(within(rowOf('UNPAID')).getByTestId('action-cancel')).toBeDisabled();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(600);
    });
    await waitFor(() => expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ reason: 'Booking not completed: payment was not made' }));
  });

  it('assigns a driver picked from the nearest eligible ones and says the driver was notified', async () => {
    const { calls } = mockApi({
      ...page([testBooking({ id: 'b3', reference: 'ASSIGN', status: 'NEW' })]),
      'GET /api/v1/bookings/b3/candidates': () => ({
        items: [
          { id: 'd-near', name: 'Nina Near', carType: 'Economy', vehicleNumber: 'MD-1', lat: 39.28, lng: -76.58, distance_km: 0.4 },
          { id: 'd-far', name: 'Fred Far', carType: 'Economy', vehicleNumber: 'MD-2', lat: 39.3, lng: -76.6, distance_km: 3.2 },
        ],
        radius: 10,
      }),
      'POST /api/v1/bookings/b3/assign': () => testBooking({ id: 'b3', reference: 'ASSIGN', status: 'NEW', requestedDrivers: { 'd-far': true }, version: 2 }),
    });
    const user = userEvent.setup();
    renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin, { autoDispatch: false }) });
    await screen.findByText('ASSIGN');
    await user.click(within(rowOf('ASSIGN')).getByTestId('action-assign'));
    const dialog = await screen.findByTestId('assign-dialog');
    const candidates = await within(dialog).findAllByTestId('assign-candidate');
    expect(candidates.map((item) => item.textContent)).toEqual([expect.stringContaining('Nina Near'), expect.stringContaining('Fred Far')]);
    expect(candidates[0]).toHaveTextContent('0.4 km');
    await user.click(candidates[1]);
    await user.click(within(dialog).getByTestId('assign-confirm'));
    await waitFor(() => expect(calls.find((call) => call.path === '/api/v1/bookings/b3/assign')?.body).toEqual({ driver: 'd-far' }));
    expect(appStore.get(notificationsAtom).map((entry) => entry.message)).toContain('panel.bookings.assigned');
    await waitFor(() => expect(screen.queryByTestId('assign-dialog')).not.toBeInTheDocument());
  });

  it('offers assign while automatic dispatch is on, and says the system offers bookings too', async () => {
    mockApi(page([testBooking({ id: 'b4', reference: 'AUTODI', status: 'NEW' }), testBooking({ id: 'b5', reference: 'TAKEN1', status: 'ACCEPTED' })]));
    renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin, { autoDispatch: true }) });
    await screen.findByText('AUTODI');
    expect(within(rowOf('AUTODI')).getByTestId('action-assign')).toBeEnabled();
    expect(within(rowOf('TAKEN1')).getByTestId('action-assign')).toBeDisabled();
    expect(screen.getByTestId('auto-dispatch-note')).toHaveTextContent('you can still assign');
  });
});

describe('the bookings grid and the booking page (issue #34)', () => {
  const now = Date.now();
  const unassigned = testBooking({ id: 'u1', reference: 'NOBODY', status: 'NEW', bookLater: false });
  const later = testBooking({ id: 'u2', reference: 'LATER1', status: 'NEW', bookLater: true, tripdate: now + 3 * 3600_000 });
  const soon = testBooking({ id: 'u3', reference: 'SOON01', status: 'NEW', bookLater: true, tripdate: now + 10 * 60_000 });
  const taken = testBooking({ id: 'u4', reference: 'TAKEN2', status: 'ACCEPTED', driver: 'user-driver-1' });

  it('tints the unassigned bookings and marks them, Book Later ones from 15 minutes before their trip', async () => {
    mockApi(page([unassigned, later, soon, taken]));
    renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin) });
    await screen.findByText('NOBODY');
    const marked = (reference: string) => [rowOf(reference).classList.contains('panel-row-warning'), within(rowOf(reference)).queryByTestId('unassigned-chip') !== null];
    expect(marked('NOBODY')).toEqual([true, true]);
    expect(marked('SOON01')).toEqual([true, true]);
    expect(marked('LATER1')).toEqual([false, false]);
    expect(marked('TAKEN2')).toEqual([false, false]);
    expect(within(rowOf('NOBODY')).getByTestId('unassigned-chip')).toHaveTextContent('Unassigned');
  });

  it('lists the unassigned alone: the NEW page from the server, without the Book Later ones still ahead', async () => {
    const asked: (string | null)[] = [];
    mockApi({
      'GET /api/v1/bookings': ({ url }) => {
        asked.push(url.searchParams.get('status'));
        return { items: url.searchParams.get('status') === 'NEW' ? [unassigned, later, soon] : [unassigned, later, soon, taken], next: null };
      },
    });
    const user = userEvent.setup();
    renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin) });
    await screen.findByText('TAKEN2');
    await user.click(screen.getByTestId('bookings-status-filter'));
    await user.click(await screen.findByTestId('bookings-filter-unassigned'));
    await waitFor(() => expect(screen.queryByText('TAKEN2')).not.toBeInTheDocument());
    expect(screen.queryByText('LATER1')).not.toBeInTheDocument();
    expect(screen.getByText('NOBODY')).toBeInTheDocument();
    expect(screen.getByText('SOON01')).toBeInTheDocument();
    expect(asked).toEqual([null, 'NEW']);
  });

  it('opens already filtered to the unassigned from the address (the dashboard card), and keeps the filter there', async () => {
    const asked: (string | null)[] = [];
    mockApi({
      'GET /api/v1/bookings': ({ url }) => {
        asked.push(url.searchParams.get('status'));
        return { items: url.searchParams.get('status') === 'NEW' ? [unassigned, later, soon] : [unassigned, later, soon, taken], next: null };
      },
    });
    const user = userEvent.setup();
    const view = renderWithProviders(<></>, { client: seededClient(admin), path: '/bookings?status=unassigned', routes: [{ path: '/bookings', element: <PanelBookings role="admin" /> }] });
    await screen.findByText('NOBODY');
    expect(screen.getByText('SOON01')).toBeInTheDocument();
    expect(screen.queryByText('LATER1')).not.toBeInTheDocument();
    expect(screen.queryByText('TAKEN2')).not.toBeInTheDocument();
    expect(screen.getByTestId('bookings-status-filter')).toHaveTextContent('Unassigned (no driver yet)');
    expect(asked).toEqual(['NEW']);
    await user.click(screen.getByTestId('bookings-status-filter'));
    await user.click(await screen.findByRole('option', { name: 'All statuses' }));
    expect(await screen.findByText('TAKEN2')).toBeInTheDocument();
    expect(view.router.state.location.search).toBe('');
  });

  it('lists all when the address names no filter it knows', async () => {
    mockApi(page([unassigned, taken]));
    renderWithProviders(<></>, { client: seededClient(admin), path: '/bookings?status=nonsense', routes: [{ path: '/bookings', element: <PanelBookings role="admin" /> }] });
    expect(await screen.findByText('TAKEN2')).toBeInTheDocument();
    expect(screen.getByText('NOBODY')).toBeInTheDocument();
  });

  it('shows where a trip really ended under its booked drop when more than 200 m apart', async () => {
    const far = testBooking({ id: 'e1', reference: 'ENDFAR', status: 'PAID', actualDrop: { lat: 39.2935, lng: -76.5794, add: 'E Baltimore St' } });
    const near = testBooking({ id: 'e2', reference: 'ENDNEA', status: 'PAID', actualDrop: { lat: 39.2906, lng: -76.5795, add: 'Next door' } });
    mockApi(page([far, near]));
    renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin) });
    await screen.findByText('ENDFAR');
    const drop = (reference: string) => rowOf(reference).querySelector('[data-field="dropAddress"]') as HTMLElement;
    expect(drop('ENDFAR')).toHaveTextContent('Patterson Park');
    expect(within(drop('ENDFAR')).getByTestId('ended-at')).toHaveTextContent('Ended at: E Baltimore St');
    expect(drop('ENDNEA')).toHaveTextContent('Patterson Park');
    expect(within(drop('ENDNEA')).queryByTestId('ended-at')).not.toBeInTheDocument();
  });

  it("opens a booking's own page from its row, and not from its actions", async () => {
    mockApi(page([unassigned]));
    const user = userEvent.setup();
    const view = renderWithProviders(<></>, {
      client: seededClient(admin),
      path: '/bookings',
      routes: [
        { path: '/bookings', element: <PanelBookings role="admin" /> },
        { path: '/bookings/:id/manage', element: <p>the booking page</p> },
      ],
    });
    await screen.findByText('NOBODY');
    await user.click(within(rowOf('NOBODY')).getByTestId('action-assign'));
    expect(await screen.findByTestId('assign-dialog')).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/bookings');
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByTestId('assign-dialog')).not.toBeInTheDocument());
    await user.click(rowOf('NOBODY').querySelector('[data-field="customer_name"]') as HTMLElement);
    expect(await screen.findByText('the booking page')).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/bookings/u1/manage');
  });
});

describe('the bookings grid asked for before it opens', () => {
  it('draws the prefetched first page at once, without asking the server again', async () => {
    const { calls } = mockApi(page([testBooking({ id: 'b1', reference: 'EARLY1', status: 'NEW' })]));
    const client = seededClient(admin);
    await prefetchPanelBookings(client);
    expect(calls.filter((call) => call.path === '/api/v1/bookings')).toHaveLength(1);
    renderWithProviders(<PanelBookings role="admin" />, { client });
    // In the first render: the rows are in the cache under the grid's own key.
    expect(screen.getByText('EARLY1')).toBeInTheDocument();
    await act(async () => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(calls.filter((call) => call.path === '/api/v1/bookings')).toHaveLength(1);
  });
});

describe('the living demo in the bookings grid (issue #35)', () => {
  it('marks the demo traffic, and only it', async () => {
    const demo = testBooking({ id: 'd1', reference: 'DEMO01', status: 'COMPLETE', demo: true });
    const person = testBooking({ id: 'd2', reference: 'REAL01', status: 'COMPLETE' });
    mockApi(page([demo, person]));
    renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin) });
    await screen.findByText('DEMO01');
    expect(within(rowOf('DEMO01')).getByTestId('demo-chip')).toHaveTextContent('Demo');
    expect(within(rowOf('REAL01')).queryByTestId('demo-chip')).toBeNull();
  });
});
