import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { notificationsAtom, notify } from '@/components/ui/notifications/notifications-store';
import { queryKeys } from '@/lib/query-keys';
import { appStore } from '@/lib/store';
import { assigned, testBooking } from '@/testing/fixtures';
import { fakeGeolocation } from '@/testing/geolocation';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { Offer } from '@/types/app';
import { keepOfferDistances } from '../api/driver';
import { DriverConsole } from '../components/driver-console';
import { playOfferSound } from '../lib/offer-sound';
import { driverPositionAtom, fixStatusAtom, sharingModeAtom, unsentPositionsAtom } from '../stores/driver-position';

vi.mock('../lib/offer-sound', () => ({ playOfferSound: vi.fn(), unlockOfferSound: vi.fn() }));

const driver = testUser({ id: 'user-driver-1', usertype: 'driver', driverActiveStatus: true, location: { lat: 39.286, lng: -76.58 } });

function offered(id: string, deadline = Date.now() + 20_000): Offer {
  return { booking: testBooking({ id, reference: id.toUpperCase(), updatedAt: Date.now() }), deadline };
}

let gps: ReturnType<typeof fakeGeolocation>;

beforeEach(() => {
  gps = fakeGeolocation();
  appStore.set(driverPositionAtom, null);
  appStore.set(fixStatusAtom, { state: 'waiting' });
  appStore.set(unsentPositionsAtom, 0);
  appStore.set(sharingModeAtom, 'device');
  appStore.set(notificationsAtom, []);
});

afterEach(() => {
  gps.restore();
  vi.useRealTimers();
});

describe("the driver's console", () => {
  it('goes online only with a position, and sends it with the status', async () => {
    const api = mockApi({ 'POST /api/v1/drivers/me/status': ({ body }) => body, 'POST /api/v1/drivers/me/location': () => ({ ok: true }) });
    const user = userEvent.setup();
    const client = seededClient({ ...driver, driverActiveStatus: false });
    renderWithProviders(<DriverConsole user={{ ...driver, driverActiveStatus: false }} trip={null} onAccepted={vi.fn()} />, { client });
    expect(screen.getByTestId('driver-online-label')).toHaveTextContent('You are offline');
    expect(screen.getByTestId('driver-online-toggle')).toBeDisabled();
    expect(screen.getByTestId('position-problem')).toHaveTextContent('Waiting for your position');
    gps.fix(39.2901, -76.6012, { accuracy: 12 });
    expect(screen.getByTestId('position-ok')).toHaveTextContent('GPS ±12 m');
    await user.click(screen.getByTestId('driver-online-toggle'));
    await vi.waitFor(() =>
      expect(api.calls[0]).toMatchObject({
        path: '/api/v1/drivers/me/status',
        body: { driverActiveStatus: true, location: { lat: 39.2901, lng: -76.6012, accuracy: 12 } },
      }),
    );
    await vi.waitFor(() => expect(client.getQueryData<{ driverActiveStatus: boolean }>(queryKeys.me)?.driverActiveStatus).toBe(true));
  });

  it('says the position is blocked and keeps the driver offline', () => {
    mockApi({});
    renderWithProviders(<DriverConsole user={{ ...driver, driverActiveStatus: false }} trip={null} onAccepted={vi.fn()} />, { client: seededClient(driver) });
    gps.deny();
    expect(screen.getByTestId('position-problem')).toHaveAttribute('data-state', 'denied');
    expect(screen.getByTestId('position-problem')).toHaveTextContent('Location is blocked');
    expect(screen.getByTestId('driver-online-toggle')).toBeDisabled();
  });

  it('does not send a fix vaguer than 100 m, and says why', async () => {
    const api = mockApi({ 'POST /api/v1/drivers/me/location': () => ({ ok: true }), 'GET /api/v1/tasks': () => ({ items: [] }) });
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client: seededClient(driver) });
    gps.fix(39.29, -76.6, { accuracy: 250 });
    expect(screen.getByTestId('position-problem')).toHaveAttribute('data-state', 'weak');
    expect(screen.getByTestId('position-problem')).toHaveTextContent('±250 m');
    gps.fix(39.2901, -76.6001, { accuracy: 9 });
    await vi.waitFor(() => expect(api.calls.filter((call) => call.path === '/api/v1/drivers/me/location')).toHaveLength(1));
    expect(api.calls.find((call) => call.path === '/api/v1/drivers/me/location')?.body).toMatchObject({ lat: 39.2901, lng: -76.6001, accuracy: 9 });
  });

  it('sends a fix that came within the second once the second is over, so the last place is never lost', async () => {
    const api = mockApi({ 'POST /api/v1/drivers/me/location': () => ({ ok: true }), 'GET /api/v1/tasks': () => ({ items: [] }) });
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client: seededClient(driver) });
    gps.fix(39.29, -76.6);
    gps.fix(39.2905, -76.6005);
    gps.fix(39.291, -76.601);
    const sent = () => api.calls.filter((call) => call.path === '/api/v1/drivers/me/location').map((call) => (call.body as { lat: number }).lat);
    await vi.waitFor(() => expect(sent()).toEqual([39.29, 39.291]), { timeout: 3_000 });
  });

  it('says when no position came for 30 seconds', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    mockApi({ 'POST /api/v1/drivers/me/location': () => ({ ok: true }), 'GET /api/v1/tasks': () => ({ items: [] }) });
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client: seededClient(driver) });
    gps.fix(39.29, -76.6);
    // The device goes quiet: asking it again brings nothing new.
    gps.geolocation.getCurrentPosition.mockImplementation(() => {});
    act(() => vi.advanceTimersByTime(31_000));
    expect(screen.getByTestId('position-problem')).toHaveAttribute('data-state', 'stale');
    expect(screen.getByTestId('position-problem')).toHaveTextContent('No position from your phone');
  });

  it('offers simulated driving only on the demo city', () => {
    mockApi({ 'GET /api/v1/tasks': () => ({ items: [] }) });
    const { unmount } = renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client: seededClient(driver) });
    expect(screen.queryByTestId('share-simulate')).not.toBeInTheDocument();
    unmount();
    // A choice left from the demo does not simulate on a real server.
    appStore.set(sharingModeAtom, 'simulate');
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client: seededClient(driver) });
    expect(screen.queryByTestId('simulating')).not.toBeInTheDocument();
    expect(screen.getByTestId('driver-console')).toHaveAttribute('data-fix', 'waiting');
  });

  it('simulates on the demo city when chosen, labelled as such', () => {
    mockApi({ 'GET /api/v1/tasks': () => ({ items: [] }), 'POST /api/v1/drivers/me/location': () => ({ ok: true }) });
    appStore.set(sharingModeAtom, 'simulate');
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client: seededClient(driver, { demoCity: true }) });
    expect(screen.getByTestId('share-simulate')).toHaveTextContent('Simulate driving (demo)');
    expect(screen.getByTestId('simulating')).toBeInTheDocument();
    expect(screen.getByTestId('driver-online-toggle')).not.toBeDisabled();
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

  it('says how far away the pickup is: as the server measured it, else from where the device is', async () => {
    mockApi({ 'GET /api/v1/tasks': () => ({ items: [] }), 'POST /api/v1/drivers/me/location': () => ({ ok: true }) });
    const client = seededClient(driver);
    client.setQueryData<Offer[]>(queryKeys.tasks, [{ ...offered('a'), distanceKm: 3.04 }, offered('b')]);
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client });
    await screen.findAllByTestId('offer-card');
    // The device puts the driver about 1.2 km from the fixture's pickup at Fells Point.
    gps.fix(39.286, -76.58);
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

  it('hands the accepted booking on, and the offer toast goes away', async () => {
    mockApi({
      'GET /api/v1/tasks': () => ({ items: [] }),
      'POST /api/v1/drivers/me/location': () => ({ ok: true }),
      'POST /api/v1/bookings/a/accept': () => assigned({ id: 'a' }),
    });
    notify({ severity: 'info', message: 'accept_booking_request', booking: 'a' });
    notify({ severity: 'info', message: 'wallet_updated' });
    const onAccepted = vi.fn();
    const user = userEvent.setup();
    const client = seededClient(driver);
    client.setQueryData<Offer[]>(queryKeys.tasks, [offered('a')]);
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={onAccepted} />, { client });
    await user.click(await screen.findByTestId('offer-accept'));
    await vi.waitFor(() => expect(onAccepted).toHaveBeenCalledWith(expect.objectContaining({ id: 'a', status: 'ACCEPTED' })));
    expect(appStore.get(notificationsAtom).map((entry) => entry.message)).toEqual(['wallet_updated']);
  });
});

describe('a parcel offer', () => {
  const parcel = (overrides = {}) =>
    testBooking({
      id: 'p',
      reference: 'PARCEL',
      appcat: 'delivery',
      parcelTypeSelected: { description: 'Small box', amount: 3 },
      optionSelected: null,
      deliveryPerson: 'Omar Khalil',
      deliveryPersonPhone: '410 555 0199',
      pickUpInstructions: 'Ring the bell at the side door',
      deliveryInstructions: '',
      updatedAt: Date.now(),
      ...overrides,
    });

  it('shows the parcel type, the recipient and the instructions given, before the driver accepts', async () => {
    mockApi({ 'GET /api/v1/tasks': () => ({ items: [] }), 'POST /api/v1/drivers/me/location': () => ({ ok: true }) });
    const client = seededClient(driver, { appcat: 'delivery' });
    client.setQueryData<Offer[]>(queryKeys.tasks, [{ booking: parcel(), deadline: Date.now() + 20_000 }]);
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client });
    const card = await screen.findByTestId('offer-card');
    expect(screen.getByText('Delivery requests')).toBeInTheDocument();
    expect(screen.getByTestId('offer-parcel-type')).toHaveTextContent('Small box');
    expect(screen.getByTestId('offer-recipient')).toHaveTextContent('Omar Khalil · 410 555 0199');
    expect(screen.getByTestId('offer-pickup-instructions')).toHaveTextContent('Ring the bell at the side door');
    expect(card).toHaveTextContent("Recipient's name");
    // No option chosen, no delivery instructions: no line for them.
    expect(screen.queryByTestId('offer-parcel-option')).not.toBeInTheDocument();
    expect(screen.queryByTestId('offer-delivery-instructions')).not.toBeInTheDocument();
  });

  it('shows the option when one was chosen, and nothing of the kind for a ride', async () => {
    mockApi({ 'GET /api/v1/tasks': () => ({ items: [] }), 'POST /api/v1/drivers/me/location': () => ({ ok: true }) });
    const client = seededClient(driver);
    client.setQueryData<Offer[]>(queryKeys.tasks, [
      { booking: parcel({ optionSelected: { description: 'Fragile handling', amount: 2 } }), deadline: null },
      offered('a'),
    ]);
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client });
    const cards = await screen.findAllByTestId('offer-card');
    expect(screen.getByText('Booking requests')).toBeInTheDocument();
    expect(screen.getByTestId('offer-parcel-option')).toHaveTextContent('Fragile handling');
    expect(cards[1].querySelector('[data-testid="offer-parcel"]')).toBeNull();
  });
});

describe("the free driver's area hint", () => {
  const ring: [number, number][] = [
    [-76.595, 39.281],
    [-76.592, 39.279],
    [-76.589, 39.281],
    [-76.589, 39.284],
    [-76.592, 39.286],
    [-76.595, 39.284],
    [-76.595, 39.281],
  ];
  const area = { cell: '882aa8c681fffff', center: { lat: 39.2825, lng: -76.592 }, boundary: ring, expectedPerHour: 6.93, distanceKm: 1.46 };

  it('shows where riders are expected on a map, as a hint', async () => {
    mockApi({ 'GET /api/v1/tasks': () => ({ items: [] }), 'GET /api/v1/drivers/me/area': () => ({ area }), 'POST /api/v1/drivers/me/location': () => ({ ok: true }) });
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client: seededClient(driver) });
    gps.fix(39.2856, -76.6105, { accuracy: 8 });
    const hint = await screen.findByTestId('suggested-area');
    expect(hint).toHaveAttribute('data-cell', area.cell);
    expect(screen.getByTestId('suggested-area-text')).toHaveTextContent('About 7 riders an hour are expected in the shaded area, 1.5 km away');
    expect(screen.getByTestId('suggested-area-text')).toHaveTextContent('Going there is up to you.');
    expect(screen.getByTestId('map-area')).toBeInTheDocument();
    expect(screen.getByTestId('map-marker-me')).toHaveAttribute('data-lat', '39.285600');
    expect(screen.getByText('© OpenStreetMap contributors')).toBeInTheDocument();
  });

  it('shows nothing when nowhere near is better', async () => {
    const api = mockApi({ 'GET /api/v1/tasks': () => ({ items: [] }), 'GET /api/v1/drivers/me/area': () => ({ area: null }) });
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client: seededClient(driver) });
    await vi.waitFor(() => expect(api.calls.some((call) => call.path === '/api/v1/drivers/me/area')).toBe(true));
    expect(screen.queryByTestId('suggested-area')).toBeNull();
  });

  it('is not asked for while offers wait', async () => {
    const offers = mockApi({ 'GET /api/v1/tasks': () => ({ items: [offered('b1').booking] }), 'GET /api/v1/drivers/me/area': () => ({ area }) });
    const client = seededClient(driver);
    client.setQueryData(queryKeys.tasks, [offered('b1')]);
    renderWithProviders(<DriverConsole user={driver} trip={null} onAccepted={vi.fn()} />, { client });
    await screen.findAllByTestId('offer-card');
    expect(offers.calls.some((call) => call.path === '/api/v1/drivers/me/area')).toBe(false);
    expect(screen.queryByTestId('suggested-area')).toBeNull();
  });
});
