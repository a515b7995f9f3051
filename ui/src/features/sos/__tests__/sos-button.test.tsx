import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfirmHost } from '@/components/ui/confirm-dialog';
import { assigned } from '@/testing/fixtures';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { Booking, SosAlertShown } from '@/types/api';
import { SosButton } from '../components/sos-button';

const alert = (booking: Booking, lat: number, lng: number): SosAlertShown => ({
  id: 'sos-1',
  booking: booking.id,
  reference: booking.reference,
  raised_by: 'user-rider-1',
  raised_by_role: 'rider',
  raised_by_name: 'Rider 1',
  lat,
  lng,
  created_at: 0,
  fleetadmin: null,
  taken_by: null,
  taken_by_name: '',
  taken_at: null,
  resolved_by: null,
  resolved_by_name: '',
  resolved_at: null,
  note: '',
  state: 'open',
});

function withPosition(position: { latitude: number; longitude: number } | 'denied') {
  const geolocation = {
    getCurrentPosition: vi.fn((found: PositionCallback, failed?: PositionErrorCallback | null) => {
      if (position === 'denied') failed?.({ code: 1, message: 'denied' } as GeolocationPositionError);
      else found({ coords: position } as GeolocationPosition);
    }),
  };
  vi.stubGlobal('navigator', { ...navigator, geolocation });
  return geolocation;
}

function renderButton(booking: Booking, userId = 'user-rider-1', lastPosition: { lat: number; lng: number } | null = null) {
  return renderWithProviders(
    <>
      <SosButton booking={booking} lastPosition={lastPosition} />
      <ConfirmHost />
    </>,
    { client: seededClient(testUser({ id: userId })) },
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('the SOS button', () => {
  it('asks first, sends where the phone is, then offers to call the panic number', async () => {
    const booking = assigned({ status: 'STARTED' });
    withPosition({ latitude: 39.2871, longitude: -76.6012 });
    const api = mockApi({
      'POST /api/v1/bookings/booking-1/sos': ({ body }) => {
        const { lat, lng } = body as { lat: number; lng: number };
        return { status: 201, body: { alert: alert(booking, lat, lng), panic: '+1 410 555 0911' } };
      },
    });
    const user = userEvent.setup();
    renderButton(booking);
    await user.click(screen.getByTestId('sos-button'));
    expect(await screen.findByTestId('confirm-dialog')).toBeInTheDocument();
    expect(api.calls).toEqual([]);
    await user.click(screen.getByTestId('confirm-ok'));
    const sent = await screen.findByTestId('sos-sent');
    expect(sent).toHaveTextContent('Help has been alerted.');
    expect(api.calls[0].body).toEqual({ lat: 39.2871, lng: -76.6012 });
    expect(screen.getByTestId('sos-call')).toHaveAttribute('href', 'tel:+14105550911');
    expect(screen.getByTestId('sos-call')).toHaveTextContent('Call +1 410 555 0911');
  });

  it('sends nothing when the question is answered no', async () => {
    const api = mockApi({});
    const user = userEvent.setup();
    renderButton(assigned({ status: 'ARRIVED' }));
    await user.click(screen.getByTestId('sos-button'));
    await user.click(await screen.findByTestId('confirm-cancel'));
    expect(screen.getByTestId('sos-button')).toBeEnabled();
    expect(api.calls).toEqual([]);
  });

  it('without a position from the browser, sends the last known one and says so', async () => {
    const booking = assigned({ status: 'STARTED', driver: 'user-driver-1' });
    withPosition('denied');
    const api = mockApi({
      'POST /api/v1/bookings/booking-1/sos': ({ body }) => {
        const { lat, lng } = body as { lat: number; lng: number };
        return { status: 201, body: { alert: alert(booking, lat, lng), panic: '' } };
      },
    });
    const user = userEvent.setup();
    renderButton(booking, 'user-driver-1', { lat: 39.3, lng: -76.6 });
    await user.click(screen.getByTestId('sos-button'));
    await user.click(await screen.findByTestId('confirm-ok'));
    expect(await screen.findByTestId('sos-sent')).toHaveTextContent('the last known one was sent');
    expect(api.calls[0].body).toEqual({ lat: 39.3, lng: -76.6 });
    // No panic number set: no call link.
    expect(screen.queryByTestId('sos-call')).not.toBeInTheDocument();
  });

  it('shows the server\'s refusal in the user\'s words', async () => {
    withPosition({ latitude: 39.28, longitude: -76.6 });
    mockApi({ 'POST /api/v1/bookings/booking-1/sos': () => apiError(409, 'sos_no_trip') });
    const user = userEvent.setup();
    renderButton(assigned({ status: 'STARTED' }));
    await user.click(screen.getByTestId('sos-button'));
    await user.click(await screen.findByTestId('confirm-ok'));
    expect(await screen.findByTestId('sos-error')).toHaveTextContent('only during a trip');
    expect(screen.queryByTestId('sos-sent')).not.toBeInTheDocument();
  });

  it('is there only for the trip\'s rider and driver while a driver is on it', () => {
    mockApi({});
    const cases: [Booking, string, boolean][] = [
      [assigned({ status: 'STARTED' }), 'user-rider-1', true],
      [assigned({ status: 'PENDING' }), 'user-driver-1', true],
      [assigned({ status: 'STARTED' }), 'user-rider-2', false],
      [assigned({ status: 'PAID' }), 'user-rider-1', false],
      [assigned({ status: 'NEW', driver: null }), 'user-rider-1', false],
    ];
    for (const [booking, userId, shown] of cases) {
      const { unmount } = renderButton(booking, userId);
      expect(screen.queryByTestId('sos-button') !== null).toBe(shown);
      unmount();
    }
  });
});
