import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import BookingPageRoute from '@/app/routes/panel-booking';
import { ConfirmHost } from '@/components/ui/confirm-dialog';
import { notificationsAtom } from '@/components/ui/notifications/notifications-store';
import type { DispatchEntry } from '@/lib/dispatch-entries';
import { queryKeys } from '@/lib/query-keys';
import { createQueryClient } from '@/lib/react-query';
import { appStore } from '@/lib/store';
import { assigned, testBooking } from '@/testing/fixtures';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { Booking, LedgerEntry, Refund, RefundDestination, Settings, User } from '@/types/api';
import { BookingPage } from '../components/booking-page';

const admin = testUser({ id: 'admin-1', usertype: 'admin', firstName: 'Ada', lastName: 'Admin' });
const fleetAdmin = testUser({ id: 'fleet-1', usertype: 'fleetadmin', firstName: 'Fleet', lastName: 'Boss', email: 'fleet@demo.wayfare', mobile: '+14105550300' });
const driverUser = testUser({ id: 'user-driver-1', usertype: 'driver', firstName: 'Dana', lastName: 'Driver', email: 'driver1@demo.wayfare', vehicleMake: 'Toyota', vehicleModel: 'Prius', vehicleColor: 'Blue', fleetadmin: 'fleet-1' });
const otherDriver = testUser({ id: 'user-driver-2', usertype: 'driver', firstName: 'Omar', lastName: 'Other' });
const T0 = Date.UTC(2026, 10, 21, 5, 52);

const reached = (overrides: Partial<Booking> = {}) =>
  assigned({
    id: 'b1',
    reference: 'RCHD01',
    status: 'REACHED',
    version: 5,
    fleetadmin: 'fleet-1',
    driver_contact: '+14105550111',
    trip_cost: 9.9,
    payableAmount: 9.9,
    convenience_fees: 0.9,
    driver_share: 9,
    bookingDate: T0,
    acceptedAt: T0 + 60_000,
    trip_start_time: T0 + 300_000,
    trip_end_time: T0 + 900_000,
    // About 330 m north of the booked drop (Patterson Park).
    actualDrop: { lat: 39.2935, lng: -76.5794, add: 'E Baltimore St & N Linwood Ave' },
    ...overrides,
  });

const timeline: DispatchEntry[] = [
  { at: T0 + 1000, booking: 'b1', kind: 'offered', wave: 1, drivers: ['user-driver-2'], distances_km: [2.4], deadline: T0 + 16_000 },
  { at: T0 + 16_000, booking: 'b1', kind: 'withdrawn', drivers: ['user-driver-2'], reason: 'expired' },
  // An admin's offer: no deadline, no distance.
  { at: T0 + 20_000, booking: 'b1', kind: 'offered', wave: 1, drivers: ['user-driver-1'], distances_km: [null], deadline: null },
  { at: T0 + 60_000, booking: 'b1', kind: 'accepted', driver: 'user-driver-1' },
];

const ledgerEntry = (overrides: Partial<LedgerEntry>): LedgerEntry => ({
  user: 'user-driver-1',
  userName: 'Dana Driver',
  role: 'driver',
  type: 'Credit',
  amount: 9,
  date: T0 + 1_000_000,
  txRef: 'DriverShare:RCHD01',
  ...overrides,
});

const refundOf = (amount: number, destination: RefundDestination): Refund => ({
  id: `refund-${amount}-${destination}`,
  booking: 'b1',
  user: 'user-rider-1',
  amount,
  currency: 'USD',
  destination,
  reason: 'Long detour',
  status: 'done',
  gateway_ref: destination === 'gateway' ? 're_1' : null,
  idempotency_key: 'key',
  made_by: 'admin-1',
  created_at: T0 + 2_000_000,
});

interface Server {
  booking: Booking;
  ledger: LedgerEntry[];
  chat?: () => unknown;
}

function serve(server: Server, extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    'GET /api/v1/bookings/b1': () => server.booking,
    'GET /api/v1/bookings/b1/tracking': () => ({
      latest: null,
      points: [
        { at: T0 + 60_000, status: 'ACCEPTED', lat: 39.2826, lng: -76.5926 },
        { at: T0 + 600_000, status: 'STARTED', lat: 39.288, lng: -76.585 },
        { at: T0 + 900_000, status: 'REACHED', lat: 39.2935, lng: -76.5794 },
      ],
    }),
    'GET /api/v1/bookings/b1/dispatch': () => ({ items: timeline }),
    'GET /api/v1/bookings/b1/ledger': () => ({ items: server.ledger }),
    'GET /api/v1/bookings/b1/chat': server.chat ?? (() => ({ messages: [] })),
    'GET /api/v1/users': ({ url }) => ({
      items: [driverUser, otherDriver, fleetAdmin].filter((user: User) => (url.searchParams.get('ids') ?? '').split(',').includes(user.id)),
      next: null,
    }),
    'GET /api/v1/cancelreasons': () => [{ label: 'Rider no-show', value: 0 }],
    ...extra,
  });
}

/** The app's own client (its mutation cache shows a refusal as a toast), seeded as the start-up gate would. */
function appClient(user: User, settings: Partial<Settings>) {
  const seeded = seededClient(user, settings);
  const client = createQueryClient();
  client.setDefaultOptions({ queries: { retry: false, staleTime: Infinity }, mutations: { retry: false } });
  for (const key of [queryKeys.settings, queryKeys.carTypes, queryKeys.languages, queryKeys.me]) client.setQueryData(key, seeded.getQueryData(key));
  return client;
}

function renderPage(user: User = admin, settings: Partial<Settings> = {}) {
  const client = appClient(user, settings);
  const view = renderWithProviders(<></>, {
    client,
    path: '/bookings/b1/manage',
    routes: [
      {
        path: '/bookings/:id/manage',
        element: (
          <>
            <BookingPageRoute />
            <ConfirmHost />
          </>
        ),
      },
      { path: '/bookings', element: <p>the grid</p> },
      { path: '/dispatch', element: <p>the console</p> },
    ],
  });
  return view;
}

const calls = (api: ReturnType<typeof mockApi>, method: string, path: string) => api.calls.filter((call) => call.method === method && call.path === path);

async function confirmYes(user: ReturnType<typeof userEvent.setup>) {
  const dialog = await screen.findByTestId('confirm-dialog');
  await user.click(within(dialog).getByTestId('confirm-ok'));
}

afterEach(() => {
  vi.restoreAllMocks();
  appStore.set(notificationsAtom, []);
});

describe("a booking's page in the panel", () => {
  it('shows the people with their contacts, where the trip really ended, the fare, the stages, the ledger and the dispatch timeline', async () => {
    const api = serve({
      booking: reached(),
      ledger: [ledgerEntry({})],
      chat: () => ({
        messages: [{ message: 'I am by the blue door', from: 'user-rider-1', type: 'msg', msgDate: '', msgTime: '', source: 'rider', smsId: null, createdAt: T0 + 120_000 }],
      }),
    });
    renderPage();
    const page = await screen.findByTestId('booking-page');
    expect(page).toHaveAttribute('data-status', 'REACHED');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Booking RCHD01');

    const people = screen.getByTestId('booking-people');
    expect(within(people).getByTestId('booking-rider')).toHaveTextContent('Rider 1');
    expect(within(people).getByTestId('booking-rider')).toHaveTextContent('+14105550201');
    expect(within(people).getByTestId('booking-driver')).toHaveTextContent('Driver 1');
    expect(within(people).getByTestId('booking-driver')).toHaveTextContent('+14105550111');
    await waitFor(() => expect(within(people).getByTestId('booking-fleet')).toHaveTextContent('Fleet Boss'));
    expect(within(people).getByTestId('booking-fleet')).toHaveTextContent('fleet@demo.wayfare');
    expect(within(people).getByTestId('booking-vehicle')).toHaveTextContent('MD-7001 · Toyota Prius Blue');

    // The booked drop stays; the real end is beside it, and on the map with the path driven.
    expect(screen.getByTestId('booking-drop')).toHaveTextContent('Patterson Park');
    expect(screen.getByTestId('booking-ended-at')).toHaveTextContent('E Baltimore St & N Linwood Ave');
    expect(screen.getByTestId('map-marker-end')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('map-track')).toBeInTheDocument());
    expect(screen.getByTestId('booking-trip')).toHaveTextContent('© OpenStreetMap contributors');

    expect(screen.getByTestId('fare-trip_cost-amount')).toHaveTextContent('$9.90');
    expect(screen.getByTestId('fare-driver_share-amount')).toHaveTextContent('$9.00');
    expect(screen.getByTestId('fare-convenience_fees-amount')).toHaveTextContent('$0.90');
    expect(screen.queryByTestId('fare-refunded')).not.toBeInTheDocument();
    expect(screen.getByTestId('stage-accepted')).toHaveTextContent('Accepted');
    expect(screen.getByTestId('stage-reached')).toBeInTheDocument();

    const entry = await screen.findByTestId('ledger-entry');
    expect(entry).toHaveAttribute('data-kind', 'DriverShare');
    expect(entry).toHaveTextContent('Driver share · Dana Driver');
    expect(entry).toHaveTextContent('+$9.00');

    // The timeline names each driver offered, with the distance and what became of the offer.
    const offers = await screen.findAllByTestId('timeline-offer');
    expect(offers.map((offer) => offer.getAttribute('data-outcome'))).toEqual(['expired', 'accepted']);
    await waitFor(() => expect(offers[0]).toHaveTextContent('Omar Other'));
    expect(offers[0]).toHaveTextContent('2.4 km');
    expect(offers[1]).toHaveTextContent('Dana Driver');
    expect(screen.getAllByTestId('timeline-row').map((row) => row.getAttribute('data-kind'))).toEqual(['offered', 'withdrawn', 'offered', 'accepted']);
    expect(screen.getAllByTestId('timeline-wave').map((wave) => wave.getAttribute('data-by'))).toEqual(['system', 'admin']);
    expect(screen.getAllByTestId('timeline-row')[2]).toHaveTextContent('Offered by an admin to Dana Driver');
    // The chat, read only: each side named.
    expect(await within(screen.getByTestId('booking-chat')).findByText('I am by the blue door')).toBeInTheDocument();
    expect(screen.getByTestId('chat-sender')).toHaveTextContent('Rider 1');
    expect(within(screen.getByTestId('booking-chat')).queryByRole('textbox')).not.toBeInTheDocument();
    expect(calls(api, 'GET', '/api/v1/bookings/b1/chat')).toHaveLength(1);
  });

  it('draws the chat it is handed, with the booking it is about', async () => {
    serve({ booking: reached(), ledger: [] });
    renderWithProviders(<BookingPage id="b1" chat={(booking) => <p>chat of {booking.reference}</p>} />, { client: appClient(admin, {}) });
    expect(await screen.findByTestId('booking-chat')).toHaveTextContent('chat of RCHD01');
  });

  it('settles a trip in cash after the confirm dialog, then shows it paid and reads its ledger again', async () => {
    const server: Server = { booking: reached(), ledger: [] };
    const api = serve(server, {
      'POST /api/v1/bookings/b1/settle': () => {
        server.booking = reached({ status: 'PAID', version: 6, cashPaymentAmount: 9.9, customer_paid: 9.9, payment_mode: 'cash' });
        server.ledger = [ledgerEntry({}), ledgerEntry({ type: 'Debit', amount: 9.9, txRef: 'CashCollected:RCHD01' })];
        return server.booking;
      },
    });
    const user = userEvent.setup();
    renderPage();
    await screen.findByTestId('booking-page');
    expect(await screen.findByTestId('ledger-empty')).toBeInTheDocument();
    await user.click(screen.getByTestId('booking-action-settle-cash'));
    // Nothing is sent before the operator confirms.
    expect(await screen.findByTestId('confirm-message')).toHaveTextContent('Driver 1 collected $9.90 in cash');
    expect(calls(api, 'POST', '/api/v1/bookings/b1/settle')).toHaveLength(0);
    await confirmYes(user);
    await waitFor(() => expect(calls(api, 'POST', '/api/v1/bookings/b1/settle').map((call) => call.body)).toEqual([{ mode: 'cash' }]));
    await waitFor(() => expect(screen.getByTestId('booking-page')).toHaveAttribute('data-status', 'PAID'));
    const entries = await screen.findAllByTestId('ledger-entry');
    expect(entries.map((entry) => entry.getAttribute('data-kind'))).toEqual(['DriverShare', 'CashCollected']);
    expect(screen.getByTestId('fare-paid_cash-amount')).toHaveTextContent('$9.90');
    // Paid: settling is over, completing is next.
    expect(screen.queryByTestId('booking-action-settle-cash')).not.toBeInTheDocument();
    expect(screen.getByTestId('booking-action-complete')).toBeInTheDocument();
    expect(appStore.get(notificationsAtom).map((notice) => notice.message)).toContain('booking_page.settled_cash');
  });

  it("marks a pending card trip paid, and shows the server's refusal of another the app's one way", async () => {
    const api = serve({ booking: reached({ status: 'PENDING', payment_mode: 'card' }), ledger: [] }, {
      'POST /api/v1/bookings/b1/settle': () => apiError(409, 'status_not_allowed'),
    });
    const user = userEvent.setup();
    renderPage();
    expect(await screen.findByTestId('booking-pending-note')).toBeInTheDocument();
    await user.click(screen.getByTestId('booking-action-mark-paid'));
    await confirmYes(user);
    await waitFor(() => expect(calls(api, 'POST', '/api/v1/bookings/b1/settle').map((call) => call.body)).toEqual([{ mode: 'card' }]));
    await waitFor(() =>
      expect(appStore.get(notificationsAtom).map((notice) => notice.message)).toContain("That is not possible in the booking's current status."),
    );
    expect(screen.getByTestId('booking-page')).toHaveAttribute('data-status', 'PENDING');
  });

  it('refunds part of a cash trip to the wallet with one idempotency key per dialog, shows its refusal in place, and lists the refund', async () => {
    const server: Server = { booking: reached({ status: 'PAID', customer_paid: 10, cashPaymentAmount: 10, payment_mode: 'cash' }), ledger: [] };
    const refunds: Refund[] = [];
    const answers: unknown[] = [];
    const api = serve(server, {
      'GET /api/v1/bookings/b1/refunds': () => {
        const refunded = refunds.reduce((sum, item) => sum + item.amount, 0);
        return { items: refunds, totals: { paid: 10, refunded, refundable: 10 - refunded }, gateway: { available: false, refundable: 0 } };
      },
      'POST /api/v1/bookings/b1/refund': ({ body }) => {
        // The first answer is lost on the way: the operator sends again.
        if (answers.length === 0) {
          answers.push('lost');
          return apiError(500, 'internal_error');
        }
        const { amount, reason } = body as { amount: number; reason: string };
        const made: Refund = { ...refundOf(amount, 'wallet'), reason };
        refunds.push(made);
        server.booking = { ...server.booking, refunded: amount, version: (server.booking.version ?? 0) + 1 };
        return { refund: made, applied: true, booking: server.booking, totals: { paid: 10, refunded: amount, refundable: 10 - amount } };
      },
      'POST /api/v1/bookings/b1/complete': () => (server.booking = { ...server.booking, status: 'COMPLETE', version: (server.booking.version ?? 0) + 1 }),
    });
    const user = userEvent.setup();
    renderPage();
    expect(await screen.findByTestId('refunds-empty')).toHaveTextContent('No refunds yet.');
    await user.click(await screen.findByTestId('booking-action-refund'));
    const dialog = await screen.findByTestId('refund-dialog');
    // Paid in cash: only the wallet can take it back.
    await waitFor(() => expect(within(dialog).getByTestId('refund-gateway-note')).toHaveTextContent('the money can only go to the wallet'));
    expect(within(dialog).getByTestId('refund-destination-gateway')).toBeDisabled();
    expect(within(dialog).getByTestId('refund-destination-wallet')).toBeChecked();
    expect(within(dialog).getByTestId('refund-whole')).toBeChecked();
    expect(dialog).toHaveTextContent('All that is left: $10.00');
    await user.click(within(dialog).getByTestId('refund-part'));
    const amount = within(dialog).getByTestId('refund-amount');
    await user.type(amount, '12');
    await user.type(within(dialog).getByTestId('refund-reason'), 'The driver took a long detour');
    await user.click(within(dialog).getByTestId('refund-submit'));
    expect(dialog).toHaveTextContent('At most $10.00 can be refunded.');
    expect(screen.queryByTestId('confirm-dialog')).not.toBeInTheDocument();
    await user.clear(amount);
    await user.type(amount, '4');
    await user.click(within(dialog).getByTestId('refund-submit'));
    expect(await screen.findByTestId('confirm-message')).toHaveTextContent("$4.00 goes to Rider 1's wallet from booking RCHD01.");
    await confirmYes(user);
    // The failure is told in the dialog, which stays open for a retry.
    expect(await within(dialog).findByTestId('server-error')).toHaveAttribute('data-code', 'internal_error');
    expect(within(dialog).getByTestId('server-error')).toHaveTextContent('Something went wrong. Please try again.');
    await user.click(within(dialog).getByTestId('refund-submit'));
    await confirmYes(user);
    await waitFor(() => expect(screen.queryByTestId('refund-dialog')).not.toBeInTheDocument());
    const sent = calls(api, 'POST', '/api/v1/bookings/b1/refund');
    expect(sent.map((call) => call.body)).toEqual([
      { amount: 4, destination: 'wallet', reason: 'The driver took a long detour' },
      { amount: 4, destination: 'wallet', reason: 'The driver took a long detour' },
    ]);
    const key = sent[0].headers['idempotency-key'];
    expect(key).toBeTruthy();
    expect(sent[1].headers['idempotency-key']).toBe(key);
    expect(appStore.get(notificationsAtom).map((notice) => notice.message)).toContain('booking_page.refunded');
    await waitFor(() => expect(screen.getByTestId('fare-refunded-amount')).toHaveTextContent('$4.00'));
    const row = await screen.findByTestId('refund-row');
    expect(row).toHaveAttribute('data-destination', 'wallet');
    expect(row).toHaveTextContent('$4.00');
    expect(row).toHaveTextContent('To the wallet');
    expect(row).toHaveTextContent('The driver took a long detour');
    expect(screen.getByTestId('refunds-totals')).toHaveTextContent('Paid $10.00 · refunded $4.00 · left $6.00');

    // A new dialog is a new refund: a new key; the whole of what is left.
    await user.click(screen.getByTestId('booking-action-refund'));
    const again = await screen.findByTestId('refund-dialog');
    await waitFor(() => expect(again).toHaveTextContent('All that is left: $6.00'));
    await user.type(within(again).getByTestId('refund-reason'), 'Again');
    await user.click(within(again).getByTestId('refund-submit'));
    await confirmYes(user);
    await waitFor(() => expect(calls(api, 'POST', '/api/v1/bookings/b1/refund')).toHaveLength(3));
    const third = calls(api, 'POST', '/api/v1/bookings/b1/refund')[2];
    expect((third.body as { amount: number }).amount).toBe(6);
    expect(third.headers['idempotency-key']).not.toBe(key);

    await user.click(screen.getByTestId('booking-action-complete'));
    await confirmYes(user);
    await waitFor(() => expect(screen.getByTestId('booking-page')).toHaveAttribute('data-status', 'COMPLETE'));
    expect(calls(api, 'POST', '/api/v1/bookings/b1/complete')).toHaveLength(1);
  });

  it('refunds a card trip back through its gateway by default, and says so when the gateway cannot refund', async () => {
    const server: Server = { booking: reached({ status: 'COMPLETE', customer_paid: 9.9, cardPaymentAmount: 9.9, payment_mode: 'card', gateway: 'paystack' }), ledger: [] };
    const api = serve(server, {
      'GET /api/v1/bookings/b1/refunds': () => ({
        items: [{ ...refundOf(2, 'gateway'), status: 'failed', reason: 'Tried before' }],
        totals: { paid: 9.9, refunded: 0, refundable: 9.9 },
        gateway: { available: true, refundable: 9.9 },
      }),
      'POST /api/v1/bookings/b1/refund': ({ body }) => {
        if ((body as { destination: string }).destination === 'gateway') return { status: 400, body: { error: { code: 'invalid_input', message: 'Some of the data is not valid.', field: 'destination' } } };
        server.booking = { ...server.booking, refunded: 9.9, version: 9 };
        return { refund: refundOf(9.9, 'wallet'), applied: true, booking: server.booking, totals: { paid: 9.9, refunded: 9.9, refundable: 0 } };
      },
    });
    const user = userEvent.setup();
    renderPage();
    // The earlier refund the gateway declined is listed as such.
    expect(await screen.findByTestId('refund-failed')).toHaveTextContent('Declined');
    await user.click(await screen.findByTestId('booking-action-refund'));
    const dialog = await screen.findByTestId('refund-dialog');
    await waitFor(() => expect(within(dialog).getByTestId('refund-destination-gateway')).toBeChecked());
    expect(within(dialog).getByTestId('refund-gateway-note')).toHaveTextContent('Up to $9.90 can go back through the payment gateway.');
    expect(dialog).toHaveTextContent('Back to the card (paystack)');
    await user.type(within(dialog).getByTestId('refund-reason'), 'Charged twice');
    await user.click(within(dialog).getByTestId('refund-submit'));
    expect(await screen.findByTestId('confirm-message')).toHaveTextContent("$9.90 goes back to Rider 1's card through paystack, from booking RCHD01.");
    await confirmYes(user);
    expect(await within(dialog).findByTestId('refund-destination-error')).toHaveTextContent("This payment gateway cannot refund. Refund to the rider's wallet instead.");
    await user.click(within(dialog).getByTestId('refund-destination-wallet'));
    expect(within(dialog).queryByTestId('refund-destination-error')).not.toBeInTheDocument();
    await user.click(within(dialog).getByTestId('refund-submit'));
    await confirmYes(user);
    await waitFor(() => expect(screen.queryByTestId('refund-dialog')).not.toBeInTheDocument());
    expect(calls(api, 'POST', '/api/v1/bookings/b1/refund').map((call) => call.body)).toEqual([
      { amount: 9.9, destination: 'gateway', reason: 'Charged twice' },
      { amount: 9.9, destination: 'wallet', reason: 'Charged twice' },
    ]);
  });

  it('assigns a driver to an unassigned booking while automatic dispatch is on, and cancels with a reason after the confirm dialog', async () => {
    const server: Server = { booking: testBooking({ id: 'b1', reference: 'NEW001', status: 'NEW', bookingDate: Date.now() }), ledger: [] };
    const api = serve(server, {
      'GET /api/v1/bookings/b1/candidates': () => ({
        items: [{ id: 'user-driver-1', name: 'Dana Driver', carType: 'Economy', vehicleNumber: 'MD-7001', lat: 39.28, lng: -76.59, distance_km: 0.6 }],
        radius: 10,
      }),
      'POST /api/v1/bookings/b1/assign': () => (server.booking = { ...server.booking, requestedDrivers: { 'user-driver-1': true }, version: 2 }),
      'POST /api/v1/bookings/b1/cancel': ({ body }) =>
        (server.booking = { ...server.booking, status: 'CANCELLED', cancelledBy: 'admin', reason: (body as { reason: string }).reason, version: 3 }),
    });
    const user = userEvent.setup();
    renderPage(admin, { autoDispatch: true });
    expect(await screen.findByTestId('booking-unassigned')).toHaveTextContent('Unassigned');
    await user.click(screen.getByTestId('booking-action-assign'));
    const dialog = await screen.findByTestId('assign-dialog');
    await user.click(await within(dialog).findByTestId('assign-candidate'));
    await user.click(within(dialog).getByTestId('assign-confirm'));
    await waitFor(() => expect(calls(api, 'POST', '/api/v1/bookings/b1/assign').map((call) => call.body)).toEqual([{ driver: 'user-driver-1' }]));

    await user.click(screen.getByTestId('booking-action-cancel'));
    const cancel = await screen.findByTestId('cancel-dialog');
    await user.click(await within(cancel).findByLabelText('Rider no-show'));
    await user.click(within(cancel).getByTestId('cancel-confirm'));
    expect(await screen.findByTestId('confirm-message')).toHaveTextContent('Booking NEW001 will be cancelled with the reason “Rider no-show”.');
    expect(calls(api, 'POST', '/api/v1/bookings/b1/cancel')).toHaveLength(0);
    await confirmYes(user);
    await waitFor(() => expect(screen.getByTestId('booking-page')).toHaveAttribute('data-status', 'CANCELLED'));
    expect(calls(api, 'POST', '/api/v1/bookings/b1/cancel').map((call) => call.body)).toEqual([{ reason: 'Rider no-show' }]);
    expect(screen.getByTestId('booking-cancelled')).toHaveTextContent('Cancelled by an administrator: Rider no-show');
    expect(screen.queryByTestId('booking-actions')).not.toBeInTheDocument();
  });

  it('reads its ledger, timeline and track again when the socket brings a newer copy of the booking', async () => {
    const server: Server = { booking: reached(), ledger: [] };
    const api = serve(server);
    const view = renderPage();
    await screen.findByTestId('booking-page');
    await waitFor(() => expect(calls(api, 'GET', '/api/v1/bookings/b1/dispatch')).toHaveLength(1));
    await act(async () => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(calls(api, 'GET', '/api/v1/bookings/b1/ledger')).toHaveLength(1);
    // What the socket's `booking` event does to the cache (features/realtime).
    act(() => {
      view.client.setQueryData(queryKeys.bookings.detail('b1'), reached({ status: 'PENDING', payment_mode: 'card', version: 6 }));
    });
    await waitFor(() => expect(screen.getByTestId('booking-page')).toHaveAttribute('data-status', 'PENDING'));
    await waitFor(() => expect(calls(api, 'GET', '/api/v1/bookings/b1/ledger')).toHaveLength(2));
    expect(calls(api, 'GET', '/api/v1/bookings/b1/dispatch')).toHaveLength(2);
    expect(calls(api, 'GET', '/api/v1/bookings/b1/tracking')).toHaveLength(2);
  });

  it('gives a fleet admin settle and complete but no cancel or refund, and links the replay to the live console', async () => {
    serve({ booking: reached({ status: 'PAID', customer_paid: 9.9 }), ledger: [] });
    renderPage(fleetAdmin);
    await screen.findByTestId('booking-page');
    const actions = screen.getByTestId('booking-actions');
    expect([...actions.querySelectorAll('a, button')].map((element) => element.getAttribute('data-testid'))).toEqual(['booking-action-complete', 'booking-action-replay']);
    expect(screen.getByTestId('booking-action-replay')).toHaveAttribute('href', '/dispatch?booking=b1&replay=1');
    // The fleet admin is the fleet: named from their own account.
    expect(screen.getByTestId('booking-fleet')).toHaveTextContent('Fleet Boss');
  });

  it('says so when the booking does not exist, with a way back to the list', async () => {
    mockApi({ 'GET /api/v1/bookings/b1': () => apiError(404, 'not_found') });
    const user = userEvent.setup();
    renderPage();
    expect(await screen.findByTestId('server-error')).toHaveTextContent('Not found.');
    await user.click(screen.getByTestId('booking-back'));
    expect(await screen.findByText('the grid')).toBeInTheDocument();
  });
});
