import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { testSosAlert as sos } from '@/testing/fixtures';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import { SosBanner } from '../components/sos-banner';

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
