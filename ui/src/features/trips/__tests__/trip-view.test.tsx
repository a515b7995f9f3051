import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { assigned, testBooking } from '@/testing/fixtures';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testSettings, testUser } from '@/testing/test-utils';
import { TripView } from '../components/trip-view';
import { visibleColumns } from '../lib/booking-columns';
import { paymentNotice } from '../lib/booking-status';

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
    expect(screen.queryByTestId('payment-dialog')).not.toBeInTheDocument();
  });

  it('pays by card: the choice makes the trip PENDING, then the provider chooser posts the checkout', async () => {
    const api = mockApi({
      'POST /api/v1/bookings/booking-1/pay': () => assigned({ status: 'PENDING', payableAmount: 9.5 }),
      'GET /api/v1/payments/providers': () => [{ name: 'test', link: '/api/v1/payments/test/checkout' }],
    });
    const posted: Record<string, string>[] = [];
    vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(function (this: HTMLFormElement) {
      posted.push({ action: this.getAttribute('action') ?? '', ...(Object.fromEntries(new FormData(this)) as Record<string, string>) });
    });
    const user = userEvent.setup();
    renderWithProviders(<TripView booking={assigned({ status: 'REACHED', payableAmount: 9.5 })} />, { client: seededClient(testUser()) });
    await user.click(screen.getByTestId('pay-now'));
    await vi.waitFor(() => expect(api.calls.find((call) => call.path.endsWith('/pay'))?.body).toEqual({ payment_mode: 'card' }));
    const chooser = await screen.findByTestId('payment-dialog');
    expect(chooser).toHaveTextContent('Amount due: $9.50');
    await user.click(await within(chooser).findByTestId('provider-test'));
    expect(posted).toEqual([
      expect.objectContaining({
        action: '/api/v1/payments/test/checkout',
        order_id: 'booking-1',
        amount: '9.5',
        success_url: expect.stringMatching(/\/bookings\?trip=booking-1&payment=paid$/),
        cancel_url: expect.stringMatching(/\/bookings\?trip=booking-1&payment=cancelled$/),
      }),
    ]);
    vi.restoreAllMocks();
  });

  it('opens the provider chooser straight away once the trip is PENDING', async () => {
    const api = mockApi({ 'GET /api/v1/payments/providers': () => [{ name: 'test', link: '/api/v1/payments/test/checkout' }] });
    const user = userEvent.setup();
    renderWithProviders(<TripView booking={assigned({ status: 'PENDING' })} />, { client: seededClient(testUser()) });
    await user.click(screen.getByTestId('pay-now'));
    expect(await screen.findByTestId('provider-test')).toBeInTheDocument();
    expect(api.calls.some((call) => call.method === 'POST')).toBe(false);
  });

  it('says a cancelled checkout left the trip unpaid, and a paid one that it was received', async () => {
    mockApi({});
    const first = renderWithProviders(<TripView booking={assigned({ status: 'PENDING' })} />, {
      client: seededClient(testUser()),
      path: '/bookings?trip=booking-1&payment=cancelled',
    });
    expect(screen.getByTestId('payment-outcome')).toHaveTextContent('The payment was not completed. This booking is still unpaid.');
    expect(screen.getByTestId('pay-now')).toBeInTheDocument();
    first.unmount();
    renderWithProviders(<TripView booking={assigned({ status: 'PAID', payment_mode: 'card' })} />, {
      client: seededClient(testUser()),
      path: '/bookings?trip=booking-1&payment=paid',
    });
    expect(screen.getByTestId('payment-outcome')).toHaveTextContent('Thank you! Your payment was received.');
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

describe('what a payer is told back from a gateway', () => {
  it('is paid once the booking shows it, else unpaid after a cancel, else being confirmed', () => {
    expect(paymentNotice(assigned({ status: 'PAID' }), 'paid').key).toBe('payment.checkout_paid');
    expect(paymentNotice(testBooking({ status: 'NEW', prepaid: true }), 'paid').key).toBe('payment.checkout_paid');
    expect(paymentNotice(assigned({ status: 'PENDING' }), 'paid').key).toBe('payment.checkout_confirming');
    expect(paymentNotice(assigned({ status: 'PENDING' }), 'cancelled')).toEqual({ key: 'payment.checkout_cancelled', severity: 'warning' });
    // Paid by a later attempt: an old cancel link does not say otherwise.
    expect(paymentNotice(assigned({ status: 'COMPLETE' }), 'cancelled').key).toBe('payment.checkout_paid');
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
