import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { queryKeys } from '@/lib/query-keys';
import { assigned, testBooking } from '@/testing/fixtures';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { Offer } from '@/types/api';
import { keepOfferDistances } from '../api/driver';
import { DriverConsole } from '../components/driver-console';
import { playOfferSound } from '../lib/offer-sound';

vi.mock('../lib/offer-sound', () => ({ playOfferSound: vi.fn(), unlockOfferSound: vi.fn() }));

const driver = testUser({ id: 'user-driver-1', usertype: 'driver', driverActiveStatus: true, location: { lat: 39.286, lng: -76.58 } });

function offered(id: string, deadline = Date.now() + 20_000): Offer {
  return { booking: testBooking({ id, reference: id.toUpperCase(), updatedAt: Date.now() }), deadline };
}

describe("the driver's console", () => {
  it('goes online and offline', async () => {
    const api = mockApi({ 'POST /api/v1/drivers/me/status': ({ body }) => body });
    const user = userEvent.setup();
    const client = seededClient({ ...driver, driverActiveStatus: false });
    renderWithProviders(<DriverConsole user={{ ...driver, driverActiveStatus: false }} trip={null} onAccepted={vi.fn()} />, { client });
    expect(screen.getByTestId('driver-online-label')).toHaveTextContent('You are offline');
    await user.click(screen.getByTestId('driver-online-toggle'));
    await vi.waitFor(() => expect(api.calls[0]).toMatchObject({ path: '/api/v1/drivers/me/status', body: { driverActiveStatus: true } }));
    await vi.waitFor(() => expect(client.getQueryData<{ driverActiveStatus: boolean }>(queryKeys.me)?.driverActiveStatus).toBe(true));
  });

  it('shows each offer with pickup, drop, distance, fare and the seconds left, with a sound', async () => {
    mockApi({ 'GET /api/v1/tasks': () => ({ items: [] }), 'POST /api/v1/drivers/me/location': () => ({ ok: true }) });
    const client = seededClient(driver);
    client.setQueryData<Offer[]>(queryKeys.tasks, [offered('a', Date.now() + 15_000)]);
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client });
    const card = await screen.findByTestId('offer-card');
    expect(card).toHaveTextContent('$7.70');
    expect(card).toHaveTextContent('2 km');
    expect(card).toHaveTextContent('Fells Point');
    expect(card).toHaveTextContent('Patterson Park');
    expect(screen.getByTestId('offer-countdown').textContent).toMatch(/^1[45] seconds$/);
    expect(playOfferSound).toHaveBeenCalled();
  });

  it('says how far away the pickup is: as the server measured it, else from where the driver is', async () => {
    mockApi({ 'GET /api/v1/tasks': () => ({ items: [] }), 'POST /api/v1/drivers/me/location': () => ({ ok: true }) });
    const client = seededClient(driver);
    client.setQueryData<Offer[]>(queryKeys.tasks, [{ ...offered('a'), distanceKm: 3.04 }, offered('b')]);
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client });
    await screen.findAllByTestId('offer-card');
    // The driver stands about 1.2 km from the fixture's pickup at Fells Point.
    await vi.waitFor(() => expect(screen.getAllByTestId('offer-away').map((entry) => entry.textContent)).toEqual([' · 3 km away', ' · 1.2 km away']));
  });

  it('keeps the distances the socket brought when the requests are read again', () => {
    const kept = keepOfferDistances([{ ...offered('a'), distanceKm: 3.04 }], [offered('a'), offered('b')]);
    expect(kept.map((offer) => offer.distanceKm ?? null)).toEqual([3.04, null]);
  });

  it('says another driver took the booking when the accept loses the race', async () => {
    mockApi({
      'GET /api/v1/tasks': () => ({ items: [] }),
      'POST /api/v1/drivers/me/location': () => ({ ok: true }),
      'POST /api/v1/bookings/a/accept': () => apiError(409, 'booking_taken'),
    });
    const user = userEvent.setup();
    const client = seededClient(driver);
    client.setQueryData<Offer[]>(queryKeys.tasks, [offered('a')]);
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client });
    await user.click(await screen.findByTestId('offer-accept'));
    expect(await screen.findByTestId('offer-lost')).toHaveTextContent('Another driver has already taken this booking.');
    expect(screen.queryByTestId('offer-card')).not.toBeInTheDocument();
  });

  it('hands the accepted booking on', async () => {
    mockApi({
      'GET /api/v1/tasks': () => ({ items: [] }),
      'POST /api/v1/drivers/me/location': () => ({ ok: true }),
      'POST /api/v1/bookings/a/accept': () => assigned({ id: 'a' }),
    });
    const onAccepted = vi.fn();
    const user = userEvent.setup();
    const client = seededClient(driver);
    client.setQueryData<Offer[]>(queryKeys.tasks, [offered('a')]);
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={onAccepted} />, { client });
    await user.click(await screen.findByTestId('offer-accept'));
    await vi.waitFor(() => expect(onAccepted).toHaveBeenCalledWith(expect.objectContaining({ id: 'a', status: 'ACCEPTED' })));
  });
});
