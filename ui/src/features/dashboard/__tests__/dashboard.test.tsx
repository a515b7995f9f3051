import { act, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queryKeys } from '@/lib/query-keys';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import { EarningCards } from '../components/earning-cards';
import { driverMarkers, LiveDriversMap } from '../components/live-drivers-map';

const admin = testUser({ id: 'admin-1', usertype: 'admin' });

function stubGeolocation(outcome: 'granted' | 'denied' | 'missing') {
  if (outcome === 'missing') {
    vi.stubGlobal('navigator', { ...navigator, geolocation: undefined });
    Reflect.deleteProperty(globalThis.navigator, 'geolocation');
    return;
  }
  const getCurrentPosition = vi.fn((ok: PositionCallback, fail: PositionErrorCallback) => {
    if (outcome === 'granted') ok({ coords: { latitude: 39.29, longitude: -76.6 } } as GeolocationPosition);
    else fail({ code: 1, message: 'User denied Geolocation' } as GeolocationPositionError);
  });
  Object.defineProperty(globalThis.navigator, 'geolocation', { value: { getCurrentPosition }, configurable: true });
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

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
    stubGeolocation('granted');
    const client = seededClient(admin);
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
    expect(screen.queryByTestId('allow-location')).not.toBeInTheDocument();
    expect(screen.getByText('© OpenStreetMap contributors')).toBeInTheDocument();
  });

  it('asks in red to allow location when the browser position is unavailable', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    stubGeolocation('denied');
    renderWithProviders(<LiveDriversMap />, { client: seededClient(admin) });
    const prompt = await screen.findByTestId('allow-location');
    expect(prompt).toHaveTextContent('Please allow location access');
    // The theme's error red (spec §8: "red allow_location text").
    expect(getComputedStyle(prompt).color).toBe('rgb(211, 47, 47)');
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
});
