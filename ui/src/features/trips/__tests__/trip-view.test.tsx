import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { assigned, testBooking } from '@/testing/fixtures';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testSettings, testUser } from '@/testing/test-utils';
import { TripView } from '../components/trip-view';
import { visibleColumns } from '../lib/booking-columns';

const tracking = { 'GET /api/v1/bookings/booking-1/tracking': () => ({ latest: { at: 1, status: 'ACCEPTED', lat: 39.285, lng: -76.59 }, points: [] }) };

describe("the rider's trip view", () => {
  it('shows the otp to give the driver while waiting for one', async () => {
    mockApi({});
    renderWithProviders(<TripView booking={testBooking()} />, { client: seededClient(testUser()) });
    expect(screen.getByTestId('trip-otp')).toHaveTextContent('42673');
    expect(screen.getByTestId('finding-driver')).toBeInTheDocument();
    expect(screen.getByTestId('status-chip')).toHaveTextContent('New');
  });

  it('shows the driver, the vehicle and the car where the driver is', async () => {
    mockApi(tracking);
    renderWithProviders(<TripView booking={assigned({ driverRating: 4.8 })} />, { client: seededClient(testUser()) });
    const card = screen.getByTestId('driver-card');
    expect(card).toHaveTextContent('Driver 1');
    expect(card).toHaveTextContent('Economy · MD-7001');
    expect(card).toHaveTextContent('4.8');
    const car = await screen.findByTestId('map-marker-car');
    expect(car).toHaveAttribute('data-lat', '39.285000');
  });

  it('cancels with a reason from the built-in list while the server has none', async () => {
    const api = mockApi({
      ...tracking,
      'POST /api/v1/bookings/booking-1/cancel': () => assigned({ status: 'CANCELLED', reason: 'Changed my plans' }),
    });
    const user = userEvent.setup();
    renderWithProviders(<TripView booking={assigned()} />, { client: seededClient(testUser()) });
    await user.click(screen.getByTestId('cancel-booking'));
    const dialog = await screen.findByTestId('cancel-dialog');
    await user.click(await within(dialog).findByLabelText('Changed my plans'));
    await user.click(within(dialog).getByTestId('cancel-confirm'));
    await vi.waitFor(() =>
      expect(api.calls.find((call) => call.path.endsWith('/cancel'))?.body).toEqual({ reason: 'Changed my plans' }),
    );
  });

  it('offers the wallet payment at the end of the trip and shows a refusal in words', async () => {
    mockApi({
      'POST /api/v1/bookings/booking-1/pay': () => ({ status: 409, body: { error: { code: 'insufficient_wallet_balance', message: '' } } }),
    });
    const user = userEvent.setup();
    renderWithProviders(<TripView booking={assigned({ status: 'REACHED' })} />, { client: seededClient(testUser()) });
    await user.click(screen.getByTestId('pay-wallet'));
    expect(await screen.findByTestId('trip-error')).toHaveTextContent('Your wallet balance is too low.');
    expect(screen.queryByTestId('pay-now')).not.toBeInTheDocument();
  });

  it('asks for a rating once paid', async () => {
    const api = mockApi({ 'POST /api/v1/bookings/booking-1/rate': () => assigned({ status: 'COMPLETE', rating: 4 }) });
    const user = userEvent.setup();
    renderWithProviders(<TripView booking={assigned({ status: 'PAID' })} />, { client: seededClient(testUser()) });
    expect(screen.getByTestId('rate-submit')).toBeDisabled();
    // jsdom has no layout for MUI's hover maths: choose the star's radio directly.
    fireEvent.click(screen.getByLabelText('4 stars'));
    await user.click(screen.getByTestId('rate-submit'));
    await vi.waitFor(() => expect(api.calls.find((call) => call.path.endsWith('/rate'))?.body).toEqual({ rating: 4 }));
  });
});

describe('the bookings table', () => {
  it('hides the driver share and the convenience fee from riders', () => {
    const rider = visibleColumns(testSettings, 'rider').map((column) => column.id);
    const admin = visibleColumns(testSettings, 'admin').map((column) => column.id);
    expect(rider).not.toContain('driver_share');
    expect(rider).not.toContain('convenience_fees');
    expect(admin).toContain('driver_share');
    expect(admin).toContain('convenience_fees');
  });

  it('shows the delivery columns only for delivery', () => {
    expect(visibleColumns(testSettings, 'admin').map((column) => column.id)).not.toContain('deliveryPerson');
    expect(visibleColumns({ ...testSettings, appcat: 'delivery' }, 'admin').map((column) => column.id)).toContain('deliveryPerson');
  });
});
