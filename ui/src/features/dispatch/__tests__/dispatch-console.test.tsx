import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import DispatchScreen from '@/app/routes/panel/dispatch';
import { testBooking } from '@/testing/fixtures';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { DispatchEntry } from '@/lib/dispatch-entries';
import type { Figures } from '../lib/types';

const emitted: { event: string; payload: unknown }[] = [];
/** What the server answers the client's `console` event. */
let consoleAck: unknown = { ok: true };

const fakeSocket = Object.assign(new EventEmitter(), {
  connected: true,
  off(event: string, handler: (...args: unknown[]) => void) {
    fakeSocket.removeListener(event, handler);
    return fakeSocket;
  },
  timeout() {
    return {
      emit: (event: string, payload: unknown, ack: (error: Error | null, answer: unknown) => void) => {
        emitted.push({ event, payload });
        ack(null, consoleAck);
      },
    };
  },
});

vi.mock('@/lib/socket', async (original) => ({
  ...(await original<typeof import('@/lib/socket')>()),
  connectSocket: vi.fn(() => fakeSocket),
  disconnectSocket: vi.fn(),
}));

const NOW = Date.now();
const admin = testUser({ id: 'admin-1', usertype: 'admin' });

const figures = (overrides: Partial<Figures> = {}): Figures => ({
  at: NOW,
  online: 12,
  available: 7,
  open: 3,
  waiting_over_2_min: 1,
  waiting_over_5_min: 0,
  dispatch_latency_p50: 420,
  dispatch_latency_p99: 2600,
  acceptance_rate: 0.75,
  time_to_accept_median: 9000,
  fulfilment: null,
  ...overrides,
});

const offered: DispatchEntry = { at: NOW - 5000, booking: 'booking-1', kind: 'offered', wave: 1, drivers: ['driver-aaaaaaaa'], distances_km: [1.4], deadline: NOW + 10_000, car_type: 'Economy' };
const accepted: DispatchEntry = { at: NOW - 1000, booking: 'booking-1', kind: 'accepted', driver: 'driver-aaaaaaaa', car_type: 'Economy' };
const otherCar: DispatchEntry = { at: NOW - 3000, booking: 'booking-2', kind: 'no_candidates', wave: 1, car_type: 'Van' };

function renderConsole(settings = {}) {
  const client = seededClient(admin, settings);
  return renderWithProviders(<DispatchScreen />, { client });
}

/** Lets the store tell the panels (it does so a moment after a burst). */
async function settle() {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
  });
}

beforeEach(() => {
  emitted.length = 0;
  consoleAck = { ok: true };
  fakeSocket.removeAllListeners();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('the live dispatch console', () => {
  it('asks for the figures and hexagons at resolution 8, and again when the resolution changes', async () => {
    mockApi({ 'GET /api/v1/dispatch/active': () => ({ items: [] }) });
    renderConsole();
    await screen.findByTestId('dispatch-console');
    expect(emitted).toEqual([{ event: 'console', payload: { resolution: 8 } }]);
    await userEvent.click(screen.getByTestId('hex-resolution'));
    await userEvent.click(await screen.findByRole('option', { name: /^10/ }));
    await waitFor(() => expect(emitted.at(-1)).toEqual({ event: 'console', payload: { resolution: 10 } }));
    expect(screen.queryByTestId('hex-refused')).toBeNull();
  });

  it('says so when the server refuses a resolution', async () => {
    mockApi({ 'GET /api/v1/dispatch/active': () => [] });
    consoleAck = { error: { code: 'invalid_input', message: 'resolution' } };
    renderConsole();
    expect(await screen.findByTestId('hex-refused')).toHaveTextContent('The server did not change the hexagon size.');
  });

  it('shows the live figures with their sparklines from the `console` event', async () => {
    mockApi({ 'GET /api/v1/dispatch/active': () => [] });
    renderConsole();
    await screen.findByTestId('dispatch-console');
    act(() => {
      fakeSocket.emit('console', { figures: figures(), history: [figures({ online: 10 }), figures()] });
    });
    await settle();
    expect(within(screen.getByTestId('figure-online')).getByTestId('figure-value')).toHaveTextContent('12');
    expect(within(screen.getByTestId('figure-dispatch_latency_p99')).getByTestId('figure-value')).toHaveTextContent('2.6 s');
    expect(within(screen.getByTestId('figure-acceptance_rate')).getByTestId('figure-value')).toHaveTextContent('75%');
    expect(within(screen.getByTestId('figure-fulfilment')).getByTestId('figure-value')).toHaveTextContent('—');
    expect(within(screen.getByTestId('figure-online')).getByTestId('sparkline').querySelector('path')).not.toBeNull();
    // Without WebGL the map says so, and still credits OpenStreetMap.
    expect(screen.getByTestId('dispatch-map')).toHaveTextContent('© OpenStreetMap contributors');
  });

  it('starts its log with the stored recent past, and the socket adds to it without repeating an entry', async () => {
    mockApi({
      'GET /api/v1/dispatch/active': () => ({ items: [] }),
      // Newest first, as the server reads them.
      'GET /api/v1/dispatch/log': () => ({ items: [accepted, offered] }),
    });
    renderConsole();
    const log = await screen.findByTestId('dispatch-log');
    await waitFor(() => expect(within(log).getAllByTestId('log-entry').map((row) => row.dataset.kind)).toEqual(['accepted', 'offered']));
    act(() => {
      // The accept again (both copies of one entry), then something new.
      fakeSocket.emit('dispatch', accepted);
      fakeSocket.emit('dispatch', otherCar);
    });
    await settle();
    expect(within(log).getAllByTestId('log-entry').map((row) => row.dataset.kind)).toEqual(['accepted', 'no_candidates', 'offered']);
  });

  it('logs dispatch entries newest first, filters them by kind and car type, and focuses a booking on click', async () => {
    const { calls } = mockApi({
      'GET /api/v1/dispatch/active': () => ({ items: [{ ...testBooking({ status: 'NEW', bookingDate: NOW - 7000 }), offered: [] }] }),
      'GET /api/v1/bookings/booking-1/dispatch': () => ({ items: [offered, accepted] }),
      'GET /api/v1/bookings/booking-1': () => testBooking({ status: 'ACCEPTED', bookingDate: NOW - 7000, version: 3 }),
    });
    renderConsole();
    await screen.findByTestId('dispatch-console');
    act(() => {
      fakeSocket.emit('dispatch', offered);
      fakeSocket.emit('dispatch', otherCar);
      fakeSocket.emit('dispatch', accepted);
    });
    await settle();
    const log = screen.getByTestId('dispatch-log');
    expect(within(log).getAllByTestId('log-entry').map((row) => row.dataset.kind)).toEqual(['accepted', 'no_candidates', 'offered']);
    expect(within(log).getAllByTestId('log-entry')[0]).toHaveTextContent('PWNXZR');

    await userEvent.click(within(log).getByTestId('log-kind-filter'));
    await userEvent.click(await screen.findByRole('option', { name: 'Offered' }));
    await userEvent.keyboard('{Escape}');
    expect(within(log).getAllByTestId('log-entry').map((row) => row.dataset.kind)).toEqual(['offered']);

    await userEvent.click(within(log).getAllByTestId('log-entry')[0]);
    const panel = await screen.findByTestId('booking-panel');
    expect(panel).toHaveAttribute('data-booking', 'booking-1');
    const timeline = await within(panel).findByTestId('timeline');
    expect(within(timeline).getAllByTestId('timeline-offer').map((row) => row.dataset.outcome)).toEqual(['accepted']);
    expect(timeline).toHaveTextContent('1.4 km');
    // Measured from the booking's creation.
    expect(timeline).toHaveTextContent('First offer after 2.0 s');
    expect(timeline).toHaveTextContent('Accepted after 6.0 s');
    expect(calls.some((call) => call.path === '/api/v1/bookings/booking-1/dispatch')).toBe(true);
  });

  it('lists the unassigned bookings, longest waiting first, tinted with the minutes waited, and marks them in the log', async () => {
    mockApi({
      'GET /api/v1/dispatch/active': () => ({
        items: [
          { ...testBooking({ id: 'booking-1', reference: 'WAITED', status: 'NEW', bookLater: false, bookingDate: NOW - 9.5 * 60_000, searchingSince: NOW - 9.5 * 60_000 }), offered: [] },
          { ...testBooking({ id: 'booking-2', reference: 'TAKENN', status: 'ACCEPTED', driver: 'driver-aaaaaaaa' }), offered: [] },
          { ...testBooking({ id: 'booking-3', reference: 'LATERR', status: 'NEW', bookLater: true, tripdate: NOW + 3_600_000 }), offered: [] },
          { ...testBooking({ id: 'booking-4', reference: 'FRESHH', status: 'NEW', bookLater: false, bookingDate: NOW - 20_000, searchingSince: NOW - 20_000 }), offered: [] },
        ],
      }),
      'GET /api/v1/bookings/booking-1/dispatch': () => [],
      'GET /api/v1/bookings/booking-1': () => testBooking({ id: 'booking-1', reference: 'WAITED', status: 'NEW' }),
    });
    renderConsole();
    await screen.findByTestId('dispatch-console');
    await settle();
    act(() => {
      fakeSocket.emit('dispatch', { ...otherCar, booking: 'booking-1' });
      fakeSocket.emit('dispatch', { ...accepted, booking: 'booking-2' });
    });
    await settle();
    // In the log (the phone's first tab): the unassigned booking's entry stands out.
    const rows = within(screen.getByTestId('dispatch-log')).getAllByTestId('log-entry');
    expect(rows.map((row) => [row.dataset.booking, row.dataset.unassigned])).toEqual([
      ['booking-2', 'false'],
      ['booking-1', 'true'],
    ]);
    expect(within(rows[1]).getByTestId('unassigned-chip')).toHaveTextContent('Unassigned · 9 min');
    expect(within(rows[0]).queryByTestId('unassigned-chip')).toBeNull();

    // Its own list, the longest waiting first.
    await userEvent.click(screen.getByTestId('dispatch-tab-unassigned'));
    const list = await screen.findByTestId('unassigned-list');
    expect(within(list).getAllByTestId('unassigned-row').map((row) => row.dataset.booking)).toEqual(['booking-1', 'booking-4']);
    expect(screen.getByTestId('unassigned-title')).toHaveTextContent('Unassigned bookings (2)');
    const [first] = within(list).getAllByTestId('unassigned-row');
    expect(first).toHaveTextContent('WAITED');
    expect(within(first).getByTestId('unassigned-chip')).toHaveTextContent('Unassigned · 9 min');
    expect(within(within(list).getAllByTestId('unassigned-row')[1]).getByTestId('unassigned-chip')).toHaveTextContent('Unassigned · <1 min');

    // A driver takes one: it leaves the list.
    act(() => {
      fakeSocket.emit('booking', testBooking({ id: 'booking-4', reference: 'FRESHH', status: 'ACCEPTED', driver: 'driver-bbbbbbbb', version: 4 }));
    });
    await settle();
    expect(within(list).getAllByTestId('unassigned-row').map((row) => row.dataset.booking)).toEqual(['booking-1']);

    // A click opens the booking.
    await userEvent.click(within(list).getByTestId('unassigned-row'));
    expect(await screen.findByTestId('booking-panel')).toHaveAttribute('data-booking', 'booking-1');
  });

  it('filters the log by car type', async () => {
    mockApi({ 'GET /api/v1/dispatch/active': () => [] });
    renderConsole();
    await screen.findByTestId('dispatch-console');
    act(() => {
      fakeSocket.emit('dispatch', offered);
      fakeSocket.emit('dispatch', otherCar);
    });
    await settle();
    const log = screen.getByTestId('dispatch-log');
    await userEvent.click(within(log).getAllByRole('combobox')[1]);
    await userEvent.click(await screen.findByRole('option', { name: 'Van' }));
    expect(within(log).getAllByTestId('log-entry').map((row) => row.dataset.booking)).toEqual(['booking-2']);
  });

  it('offers manual assignment on a waiting booking when auto dispatch is off, with the bookings screen dialog', async () => {
    mockApi({
      'GET /api/v1/dispatch/active': () => [{ ...testBooking({ status: 'NEW' }), offered: [] }],
      'GET /api/v1/bookings/booking-1/dispatch': () => [],
      'GET /api/v1/bookings/booking-1': () => testBooking({ status: 'NEW' }),
      'GET /api/v1/bookings/booking-1/candidates': () => ({ items: [], radius: 5 }),
    });
    renderConsole({ autoDispatch: false });
    await screen.findByTestId('dispatch-console');
    act(() => {
      fakeSocket.emit('dispatch', { ...otherCar, booking: 'booking-1' });
    });
    await settle();
    await userEvent.click(screen.getAllByTestId('log-entry')[0]);
    const panel = await screen.findByTestId('booking-panel');
    expect(await within(panel).findByTestId('timeline-empty')).toBeInTheDocument();
    expect(within(panel).getByTestId('booking-cancel')).toBeInTheDocument();
    await userEvent.click(within(panel).getByTestId('booking-assign'));
    expect(await screen.findByTestId('assign-dialog')).toBeInTheDocument();
  });

  it("sends a driver a message, and shows the server's refusal the panel's way", async () => {
    const { calls } = mockApi({
      'GET /api/v1/dispatch/active': () => [{ ...testBooking({ status: 'NEW' }), offered: [] }],
      'GET /api/v1/bookings/booking-1/dispatch': () => [offered],
      'GET /api/v1/bookings/booking-1': () => testBooking({ status: 'NEW' }),
      'POST /api/v1/drivers/driver-aaaaaaaa/message': () => apiError(403, 'demo_mode'),
    });
    renderConsole();
    await screen.findByTestId('dispatch-console');
    act(() => {
      fakeSocket.emit('dispatch', offered);
    });
    await settle();
    await userEvent.click(screen.getAllByTestId('log-entry')[0]);
    const timeline = await screen.findByTestId('timeline');
    await userEvent.click(within(timeline).getByRole('button', { name: 'aaaaaaaa' }));
    const dialog = await screen.findByTestId('driver-dialog');
    await userEvent.type(within(dialog).getByTestId('driver-message'), 'Please head north');
    await userEvent.click(within(dialog).getByTestId('driver-message-send'));
    expect(await within(dialog).findByTestId('server-error')).toHaveAttribute('data-code', 'demo_mode');
    expect(calls.find((call) => call.method === 'POST')?.body).toEqual({ message: 'Please head north' });
  });

  it('replays a finished trip with its stages, at the speed chosen', async () => {
    const points = [
      { at: NOW - 600_000, status: 'ACCEPTED', lat: 39.28, lng: -76.6 },
      { at: NOW - 420_000, status: 'ARRIVED', lat: 39.282, lng: -76.6 },
      { at: NOW - 400_000, status: 'STARTED', lat: 39.282, lng: -76.6 },
      { at: NOW - 100_000, status: 'REACHED', lat: 39.29, lng: -76.58 },
    ];
    const { calls } = mockApi({
      'GET /api/v1/dispatch/active': () => [],
      'GET /api/v1/bookings/booking-1/dispatch': () => [offered, accepted],
      'GET /api/v1/bookings/booking-1': () => testBooking({ status: 'COMPLETE', driver: 'driver-aaaaaaaa' }),
      'GET /api/v1/bookings/booking-1/tracking': () => ({ latest: points[3], points }),
    });
    renderConsole();
    await screen.findByTestId('dispatch-console');
    act(() => {
      fakeSocket.emit('dispatch', accepted);
    });
    await settle();
    await userEvent.click(screen.getAllByTestId('log-entry')[0]);
    const panel = await screen.findByTestId('booking-panel');
    // A finished trip can be neither assigned nor cancelled.
    expect(within(panel).queryByTestId('booking-assign')).toBeNull();
    expect(within(panel).queryByTestId('booking-cancel')).toBeNull();
    await userEvent.click(await within(panel).findByTestId('booking-replay'));
    const replay = await within(panel).findByTestId('replay');
    expect(within(replay).getByTestId('replay-stages')).toHaveTextContent(/Accepted.*Arrived.*\+3 min 00 s.*Started.*Reached.*\+8 min 20 s/);
    expect(within(replay).getByTestId('replay-speed-16')).toHaveAttribute('aria-pressed', 'true');
    await userEvent.click(within(replay).getByTestId('replay-speed-64'));
    expect(within(replay).getByTestId('replay-speed-64')).toHaveAttribute('aria-pressed', 'true');
    await userEvent.click(within(replay).getByTestId('replay-play'));
    expect(within(replay).getByTestId('replay-play')).toHaveAccessibleName('Pause');
    expect(calls.some((call) => call.path === '/api/v1/bookings/booking-1/tracking')).toBe(true);
  });

  it("opens on a booking replaying its trip when a booking's page links to it, and links back to that page", async () => {
    const points = [
      { at: NOW - 600_000, status: 'ACCEPTED', lat: 39.28, lng: -76.6 },
      { at: NOW - 100_000, status: 'REACHED', lat: 39.29, lng: -76.58 },
    ];
    mockApi({
      'GET /api/v1/dispatch/active': () => [],
      'GET /api/v1/bookings/booking-1/dispatch': () => [offered, accepted],
      'GET /api/v1/bookings/booking-1': () => testBooking({ status: 'PAID', driver: 'driver-aaaaaaaa' }),
      'GET /api/v1/bookings/booking-1/tracking': () => ({ latest: points[1], points }),
    });
    renderWithProviders(<DispatchScreen />, { client: seededClient(admin), path: '/dispatch?booking=booking-1&replay=1' });
    const panel = await screen.findByTestId('booking-panel');
    expect(panel).toHaveAttribute('data-booking', 'booking-1');
    const replay = await within(panel).findByTestId('replay');
    expect(within(replay).getByTestId('replay-stages')).toHaveTextContent(/Accepted.*Reached/);
    expect(within(panel).getByTestId('booking-open-page')).toHaveAttribute('href', '/bookings/booking-1/manage');
  });
});
