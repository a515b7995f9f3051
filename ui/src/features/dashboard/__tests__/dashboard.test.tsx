import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import DashboardScreen from '@/app/routes/panel/dashboard';
import { applyActiveBooking } from '@/lib/active-bookings';
import { queryKeys } from '@/lib/query-keys';
import { testBooking } from '@/testing/fixtures';
import { fakeGeolocation } from '@/testing/geolocation';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { Booking } from '@/types/api';
import { EarningCards } from '../components/earning-cards';
import { dashboardFrame, driverMarkers, LiveDriversMap } from '../components/live-drivers-map';
import { unassignedSummary } from '../components/unassigned-card';

const admin = testUser({ id: 'admin-1', usertype: 'admin' });

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  Reflect.deleteProperty(navigator, 'geolocation');
});

/** The dashboard's reads: its cards, and the active bookings. */
function dashboardApi(active: Booking[] = []) {
  return mockApi({
    'GET /api/v1/dashboard/earnings': () => ({ today: 12.5, thisMonth: 340.2, total: 9876, rides: { today: 1, thisMonth: 30, total: 900 } }),
    'GET /api/v1/dispatch/active': () => ({ items: active }),
  });
}

describe('the dashboard', () => {
  it("shows today's, this month's and the total gross earning in the platform's currency format", async () => {
    mockApi({
      'GET /api/v1/dashboard/earnings': () => ({ today: 12.5, thisMonth: 340.2, total: 9876, rides: { today: 1, thisMonth: 30, total: 900 } }),
    });
    renderWithProviders(<EarningCards />, { client: seededClient(admin, { symbol: '€', swipe_symbol: true, decimal: 2 }) });
    expect(await screen.findByTestId('earning-today-amount')).toHaveTextContent('12.50 €');
    expect(screen.getByTestId('earning-month-amount')).toHaveTextContent('340.20 €');
    expect(screen.getByTestId('earning-total-amount')).toHaveTextContent('9876.00 €');
    expect(screen.getByTestId('earning-today')).toHaveTextContent('1 paid trip');
    expect(screen.getByTestId('earning-total')).toHaveTextContent('900 paid trips');
  });

  it('says what went wrong when the figures cannot be read, and retries', async () => {
    mockApi({ 'GET /api/v1/dashboard/earnings': () => apiError(403, 'not_allowed') });
    renderWithProviders(<EarningCards />, { client: seededClient(admin) });
    expect(await screen.findByTestId('server-error')).toHaveAttribute('data-code', 'not_allowed');
  });

  it('draws each online driver as a car, grey while on a trip, and counts them', async () => {
    const client = seededClient(admin);
    client.setQueryData(queryKeys.bookings.active, []);
    renderWithProviders(<LiveDriversMap />, { client });
    expect(await screen.findByTestId('live-none')).toBeInTheDocument();
    act(() => {
      client.setQueryData(queryKeys.liveDrivers, [
        { id: 'd1', carType: 'Economy', lat: 39.28, lng: -76.58, available: true },
        { id: 'd2', carType: 'Comfort', lat: 39.29, lng: -76.59, available: false },
        { id: 'd3', carType: 'Economy', lat: 39.27, lng: -76.57, available: true },
      ]);
    });
    const map = await screen.findByTestId('map');
    expect(within(map).getAllByTestId('map-marker-car')).toHaveLength(2);
    expect(within(map).getAllByTestId('map-marker-car-busy')).toHaveLength(1);
    expect(screen.getByTestId('live-available')).toHaveTextContent('2 available');
    expect(screen.getByTestId('live-busy')).toHaveTextContent('1 on a trip');
    expect(screen.getByText('© OpenStreetMap contributors')).toBeInTheDocument();
  });

  it('marks the pickups still to be made, not those of trips under way or unpaid', async () => {
    const client = seededClient(admin);
    client.setQueryData(queryKeys.bookings.active, [
      testBooking({ id: 'b-new', status: 'NEW' }),
      testBooking({ id: 'b-going', status: 'ACCEPTED', driver: 'd1' }),
      testBooking({ id: 'b-started', status: 'STARTED', driver: 'd2' }),
      testBooking({ id: 'b-unpaid', status: 'PAYMENT_PENDING' }),
    ]);
    renderWithProviders(<LiveDriversMap />, { client });
    const map = await screen.findByTestId('map');
    expect(within(map).getAllByTestId('map-marker-pickup')).toHaveLength(2);
  });

  it('opens its map on the drivers and pickups, and is framed again only when one kind appears or goes', () => {
    const driver = { lat: 39.28, lng: -76.58 };
    const pickup = { lat: 39.3, lng: -76.6 };
    expect(dashboardFrame([driver], [pickup])).toEqual({ points: [driver, pickup], key: 'true-true' });
    // A car that moves keeps the key (the view is not pulled about)…
    expect(dashboardFrame([{ lat: 39.281, lng: -76.581 }], [pickup]).key).toBe('true-true');
    // …the first pickup changes it.
    expect(dashboardFrame([driver], []).key).toBe('true-false');
    expect(dashboardFrame([], []).points).toEqual([]);
  });

  it('turns feed entries into markers without inventing any', () => {
    expect(driverMarkers([{ id: 'd1', carType: null, lat: 1, lng: 2, available: false }])).toEqual([
      { id: 'd1', kind: 'car-busy', lat: 1, lng: 2, label: undefined, lost: false },
    ]);
  });

  it('fades a driver whose position went stale instead of showing it as current', () => {
    const [marker] = driverMarkers([{ id: 'd1', carType: 'Economy', lat: 1, lng: 2, available: true, stale: true }]);
    expect(marker).toMatchObject({ kind: 'car', lost: true });
  });

  it("renders without asking the browser where the viewer is: an admin's position says nothing about the city", async () => {
    const geolocation = fakeGeolocation();
    dashboardApi();
    renderWithProviders(<DashboardScreen />, { client: seededClient(admin) });
    expect(await screen.findByTestId('earning-today-amount')).toHaveTextContent('$12.50');
    expect(await screen.findByTestId('unassigned-count')).toBeInTheDocument();
    expect(screen.getByTestId('live-drivers')).toBeInTheDocument();
    expect(geolocation.geolocation.getCurrentPosition).not.toHaveBeenCalled();
    expect(geolocation.geolocation.watchPosition).not.toHaveBeenCalled();
    expect(screen.queryByTestId('allow-location')).not.toBeInTheDocument();
  });
});

describe("the dashboard's unassigned bookings", () => {
  const NOW = Date.now();
  const MINUTE = 60_000;

  it('counts the bookings nobody took that are due, links to the bookings screen filtered to them, and follows the socket', async () => {
    dashboardApi([
      testBooking({ id: 'now', status: 'NEW', bookLater: false, bookingDate: NOW - 7 * MINUTE, searchingSince: NOW - 7 * MINUTE }),
      testBooking({ id: 'soon', status: 'NEW', bookLater: true, bookingDate: NOW - 60 * MINUTE, tripdate: NOW + 10 * MINUTE }),
      testBooking({ id: 'later', status: 'NEW', bookLater: true, bookingDate: NOW - 60 * MINUTE, tripdate: NOW + 60 * MINUTE }),
      testBooking({ id: 'taken', status: 'ACCEPTED', driver: 'd1', version: 2 }),
      testBooking({ id: 'unpaid', status: 'PAYMENT_PENDING' }),
    ]);
    const client = seededClient(admin);
    renderWithProviders(<DashboardScreen />, { client });
    const count = await screen.findByTestId('unassigned-count');
    expect(count).toHaveTextContent('Unassigned bookings: 2');
    expect(screen.getByTestId('unassigned-card')).toHaveTextContent('the longest for 7 min');
    expect(screen.getByTestId('unassigned-link')).toHaveAttribute('href', '/bookings?status=unassigned');
    // A driver takes one; a new one comes; it is cancelled: the socket's
    // events, as features/realtime writes them into the cache.
    act(() => {
      applyActiveBooking(client, testBooking({ id: 'now', status: 'ACCEPTED', driver: 'd2', version: 5 }));
    });
    await waitFor(() => expect(screen.getByTestId('unassigned-count')).toHaveTextContent('Unassigned bookings: 1'));
    act(() => {
      applyActiveBooking(client, testBooking({ id: 'fresh', status: 'NEW', bookLater: false, bookingDate: NOW }));
    });
    await waitFor(() => expect(screen.getByTestId('unassigned-count')).toHaveTextContent('Unassigned bookings: 2'));
    // The Book Later trip has been due for 5 minutes; the new one, under one.
    expect(screen.getByTestId('unassigned-card')).toHaveTextContent('the longest for 5 min');
    act(() => {
      applyActiveBooking(client, testBooking({ id: 'fresh', status: 'CANCELLED', version: 9 }));
    });
    await waitFor(() => expect(screen.getByTestId('unassigned-count')).toHaveTextContent('Unassigned bookings: 1'));
  });

  it('says when every due booking has a driver', async () => {
    dashboardApi([testBooking({ id: 'later', status: 'NEW', bookLater: true, tripdate: NOW + 60 * MINUTE })]);
    renderWithProviders(<DashboardScreen />, { client: seededClient(admin) });
    expect(await screen.findByTestId('unassigned-count')).toHaveTextContent('Unassigned bookings: 0');
    expect(screen.getByTestId('unassigned-card')).toHaveTextContent('Every booking that is due has a driver.');
  });

  it('says a booking has waited less than a minute rather than 0 minutes', async () => {
    dashboardApi([testBooking({ id: 'fresh', status: 'NEW', bookLater: false, bookingDate: NOW - 20_000, searchingSince: NOW - 20_000 })]);
    renderWithProviders(<DashboardScreen />, { client: seededClient(admin) });
    expect(await screen.findByTestId('unassigned-count')).toHaveTextContent('Unassigned bookings: 1');
    expect(screen.getByTestId('unassigned-card')).toHaveTextContent('Waiting for a driver for less than a minute.');
  });

  it('counts a Book Later trip once it is 15 minutes away, with its wait from then', () => {
    const later = testBooking({ status: 'NEW', bookLater: true, bookingDate: NOW - 120 * MINUTE, tripdate: NOW + 20 * MINUTE });
    expect(unassignedSummary([later], NOW)).toEqual({ count: 0, longestMinutes: 0 });
    expect(unassignedSummary([later], NOW + 5 * MINUTE)).toEqual({ count: 1, longestMinutes: 0 });
    expect(unassignedSummary([later], NOW + 9 * MINUTE)).toEqual({ count: 1, longestMinutes: 4 });
  });
});
