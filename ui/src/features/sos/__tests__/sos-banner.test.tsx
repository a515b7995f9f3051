import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { applySos } from '@/features/realtime/lib/apply-server-event';
import { queryKeys } from '@/lib/query-keys';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { SosAlertShown } from '@/types/api';
import { SosBanner } from '../components/sos-banner';

const sos = (id: string, overrides: Partial<SosAlertShown> = {}): SosAlertShown => ({
  id,
  booking: `booking-${id}`,
  reference: `REF${id.toUpperCase()}`,
  raised_by: 'user-rider-1',
  raised_by_role: 'rider',
  raised_by_name: 'Rider 1',
  lat: 39.28,
  lng: -76.6,
  created_at: 1_800_000_000_000,
  fleetadmin: null,
  taken_by: null,
  taken_by_name: '',
  taken_at: null,
  resolved_by: null,
  resolved_by_name: '',
  resolved_at: null,
  note: '',
  state: 'open',
  ...overrides,
});

const admin = testUser({ id: 'user-admin', usertype: 'admin' });

describe('the SOS banner', () => {
  it('lists the open alerts it loads, with who, which booking and the way to them', async () => {
    const api = mockApi({ 'GET /api/v1/sos': () => ({ items: [sos('a', { raised_by_role: 'driver', raised_by_name: 'Driver 4' })], next: null }) });
    renderWithProviders(<SosBanner />, { client: seededClient(admin) });
    const line = await screen.findByTestId('sos-banner-alert');
    expect(line).toHaveTextContent('Driver 4 · Driver');
    expect(line).toHaveTextContent('Booking REFA');
    expect(screen.getByTestId('sos-banner-open')).toHaveAttribute('href', '/sos?alert=a');
    expect(api.calls[0].path).toBe('/api/v1/sos');
  });

  it('follows the socket: a new alert appears, a taken one goes', async () => {
    mockApi({ 'GET /api/v1/sos': () => ({ items: [], next: null }) });
    const client = seededClient(admin);
    renderWithProviders(<SosBanner />, { client });
    await vi.waitFor(() => expect(client.getQueryData(queryKeys.sos.open)).toEqual([]));
    expect(screen.queryByTestId('sos-banner')).not.toBeInTheDocument();
    act(() => applySos(client, sos('b')));
    expect(await screen.findByTestId('sos-banner')).toHaveTextContent('REFB');
    act(() => applySos(client, sos('b', { state: 'taken', taken_at: 1 })));
    await waitFor(() => expect(screen.queryByTestId('sos-banner')).not.toBeInTheDocument());
  });

  it('takes an alert, which leaves the banner', async () => {
    const api = mockApi({
      'GET /api/v1/sos': () => ({ items: [sos('c')], next: null }),
      'POST /api/v1/sos/c/take': () => sos('c', { state: 'taken', taken_by: 'user-admin', taken_at: 2 }),
    });
    const user = userEvent.setup();
    renderWithProviders(<SosBanner />, { client: seededClient(admin) });
    await user.click(await screen.findByTestId('sos-banner-take'));
    await waitFor(() => expect(screen.queryByTestId('sos-banner')).not.toBeInTheDocument());
    expect(api.calls.some((call) => call.method === 'POST' && call.path === '/api/v1/sos/c/take')).toBe(true);
  });

  it('is not drawn for riders and drivers, who are never sent alerts', async () => {
    const api = mockApi({});
    renderWithProviders(<SosBanner />, { client: seededClient(testUser()) });
    await act(async () => undefined);
    expect(screen.queryByTestId('sos-banner')).not.toBeInTheDocument();
    expect(api.calls).toEqual([]);
  });
});
