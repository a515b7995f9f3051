import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queryKeys } from '@/lib/query-keys';
import { assigned, testBooking } from '@/testing/fixtures';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testSettings, testUser } from '@/testing/test-utils';
import type { Booking, User } from '@/types/api';
import type { Page } from '@/types/app';
import { useBooking } from '../api/bookings';
import { BookingsTable } from '../components/bookings-table';
import { TripView } from '../components/trip-view';
import { panelBookingColumns } from '../lib/panel-booking-columns';

/** The trip as the page shows it: read from the cache, so a command's answer shows. */
function LiveTrip({ id }: { id: string }) {
  const trip = useBooking(id);
  const location = useLocation();
  return (
    <>
      {trip.data && <TripView booking={trip.data} />}
      <span data-testid="location">{`${location.pathname}${location.search}`}</span>
    </>
  );
}

function renderTrip(booking: Booking, { user = testUser(), path = '/bookings' }: { user?: User; path?: string } = {}) {
  const client = seededClient(user);
  client.setQueryData(queryKeys.bookings.detail(booking.id), booking);
  return renderWithProviders(<LiveTrip id={booking.id} />, { client, path });
}

const at = (hours: number, minutes: number, seconds = 0) => new Date(2026, 10, 21, hours, minutes, seconds).getTime();
const providers = { 'GET /api/v1/payments/providers': () => [{ name: 'test', link: '/api/v1/payments/test/checkout' }] };

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('waiting for a driver', () => {
  it('runs a clock from searchingSince and says until when the search goes on', () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    vi.setSystemTime(at(14, 23, 23));
    mockApi({});
    renderTrip(
      testBooking({ searchingSince: at(14, 22), bookingDate: at(14, 0), timers: { generation: 1, auto_cancel: { at: at(14, 32), generation: 1 } } }),
    );
    const waiting = screen.getByTestId('finding-driver');
    expect(within(waiting).getByTestId('wait-clock')).toHaveTextContent('1:23');
    expect(within(waiting).getByTestId('search-ends')).toHaveTextContent("We'll keep looking until 14:32.");
    act(() => vi.advanceTimersByTime(2000));
    expect(within(waiting).getByTestId('wait-clock')).toHaveTextContent('1:25');
    expect(screen.getByTestId('trip-next-step')).toHaveTextContent('Looking for a driver near you…');
  });

  it('counts from the booking when the search has no start of its own', () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    vi.setSystemTime(at(14, 10, 5));
    mockApi({});
    renderTrip(testBooking({ searchingSince: null, bookingDate: at(14, 0) }));
    expect(screen.getByTestId('wait-clock')).toHaveTextContent('10:05');
    expect(screen.queryByTestId('search-ends')).not.toBeInTheDocument();
  });

  it('shows a Book Later trip its date instead of a clock before its search', () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    vi.setSystemTime(at(9, 0));
    mockApi({});
    renderTrip(testBooking({ bookLater: true, tripdate: at(18, 30), searchingSince: null, timers: { generation: 1, auto_cancel: { at: at(19, 0), generation: 1 } } }));
    expect(screen.getByTestId('wait-trip-date')).toHaveTextContent('Your trip is on 2026-11-21 18:30.');
    expect(screen.queryByTestId('wait-clock')).not.toBeInTheDocument();
    expect(screen.queryByTestId('search-ends')).not.toBeInTheDocument();
    expect(screen.getByTestId('trip-next-step')).toHaveTextContent('A driver will be assigned before your trip.');
  });

  it('cancels for free, from beside the clock, with a reason', async () => {
    const api = mockApi({ 'POST /api/v1/bookings/booking-1/cancel': () => testBooking({ status: 'CANCELLED', reason: 'Changed my plans', version: 2 }) });
    const user = userEvent.setup();
    renderTrip(testBooking());
    // One cancel button, the free one.
    expect(screen.getAllByTestId('cancel-booking')).toHaveLength(1);
    const cancel = within(screen.getByTestId('finding-driver')).getByTestId('cancel-booking');
    expect(cancel).toHaveTextContent('Cancel (free)');
    await user.click(cancel);
    const dialog = await screen.findByTestId('cancel-dialog');
    expect(within(dialog).getByTestId('cancel-free-note')).toHaveTextContent('cancelling is free');
    await user.click(await within(dialog).findByLabelText('Changed my plans'));
    await user.click(within(dialog).getByTestId('cancel-confirm'));
    await vi.waitFor(() => expect(api.calls.find((call) => call.path.endsWith('/cancel'))?.body).toEqual({ reason: 'Changed my plans' }));
    expect(await screen.findByTestId('trip-cancelled')).toHaveTextContent('This booking was cancelled: Changed my plans');
    expect(screen.queryByTestId('finding-driver')).not.toBeInTheDocument();
  });

  it('keeps the paid cancel, not the free one, once a driver accepted', () => {
    mockApi({ 'GET /api/v1/bookings/booking-1/tracking': () => ({ latest: null, points: [] }) });
    renderTrip(assigned());
    expect(screen.queryByTestId('finding-driver')).not.toBeInTheDocument();
    expect(screen.getByTestId('cancel-booking')).toHaveTextContent('Cancel booking');
    expect(screen.getByTestId('trip-next-step')).toHaveTextContent('Your driver is on the way');
  });
});

describe('a booking the system cancelled', () => {
  const noDriver = testBooking({ status: 'CANCELLED', reason: 'no_driver_available', cancelledBy: 'system', version: 3 });

  it('says no driver was free and nothing was charged, and tries again as a new booking', async () => {
    const api = mockApi({ 'POST /api/v1/bookings/booking-1/rebook': () => testBooking({ id: 'booking-2', reference: 'QWERTY' }) });
    const user = userEvent.setup();
    renderTrip(noDriver, { path: '/bookings?trip=booking-1' });
    const notice = screen.getByTestId('trip-cancelled');
    expect(notice).toHaveTextContent('No driver was free to take your trip. You were not charged.');
    expect(notice).not.toHaveTextContent('no_driver_available');
    expect(screen.getByTestId('trip-next-step')).toHaveTextContent('This booking is closed');
    await user.click(within(notice).getByTestId('rebook'));
    await vi.waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/bookings?trip=booking-2'));
    expect(api.calls.filter((call) => call.path.endsWith('/rebook'))).toMatchObject([{ method: 'POST', path: '/api/v1/bookings/booking-1/rebook', body: {} }]);
  });

  it('also follows an answer shaped {booking_id, mainData}', async () => {
    mockApi({ 'POST /api/v1/bookings/booking-1/rebook': () => ({ booking_id: 'booking-9', mainData: { status: 'NEW' } }) });
    const user = userEvent.setup();
    renderTrip(noDriver);
    await user.click(screen.getByTestId('rebook'));
    await vi.waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/bookings?trip=booking-9'));
  });

  it('shows a refused try again in words and stays', async () => {
    mockApi({ 'POST /api/v1/bookings/booking-1/rebook': () => ({ status: 409, body: { error: { code: 'status_not_allowed', message: '' } } }) });
    const user = userEvent.setup();
    renderTrip(noDriver, { path: '/bookings?trip=booking-1' });
    await user.click(screen.getByTestId('rebook'));
    expect(await screen.findByTestId('trip-error')).not.toHaveTextContent('status_not_allowed');
    expect(screen.getByTestId('location')).toHaveTextContent('/bookings?trip=booking-1');
  });

  it('offers no try again to a driver looking at the booking', () => {
    mockApi({});
    renderTrip(noDriver, { user: testUser({ id: 'user-driver-1', usertype: 'driver' }) });
    expect(screen.getByTestId('trip-cancelled')).toHaveTextContent('No driver was free');
    expect(screen.queryByTestId('rebook')).not.toBeInTheDocument();
    expect(screen.queryByTestId('trip-next-step')).not.toBeInTheDocument();
  });

  it('says when the payment never came, and shows a person’s reason as written', () => {
    mockApi({});
    const unpaid = renderTrip(testBooking({ status: 'CANCELLED', reason: 'payment_not_received', cancelledBy: 'system' }));
    expect(screen.getByTestId('trip-cancelled')).toHaveTextContent('Cancelled: the payment was not received');
    unpaid.unmount();
    renderTrip(testBooking({ status: 'CANCELLED', reason: 'Found another ride', cancelledBy: 'rider' }));
    expect(screen.getByTestId('trip-cancelled')).toHaveTextContent('This booking was cancelled: Found another ride');
  });
});

describe('a booking waiting for its payment (PAYMENT_PENDING)', () => {
  const unpaid = () =>
    testBooking({
      status: 'PAYMENT_PENDING',
      appcat: 'delivery',
      payment_mode: 'card',
      payableAmount: 12.4,
      timers: { generation: 1, auto_cancel: { at: at(15, 5), generation: 1 } },
    });

  it('says payment is needed, not that a driver is being found, and when it will be cancelled', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at(14, 0));
    mockApi({});
    renderTrip(unpaid());
    const needed = screen.getByTestId('payment-needed');
    expect(needed).toHaveTextContent('Payment needed');
    expect(needed).toHaveTextContent('Your booking is not sent to drivers until it is paid.');
    expect(within(needed).getByTestId('payment-deadline')).toHaveTextContent('If it is not paid by 15:05, it will be cancelled.');
    expect(screen.queryByTestId('finding-driver')).not.toBeInTheDocument();
    expect(screen.getByTestId('trip-view')).not.toHaveTextContent('Looking for a driver');
    expect(screen.getByTestId('trip-next-step')).toHaveTextContent('Waiting for your payment');
  });

  it('pays through the same checkout as the booking form, and closing the chooser leaves it waiting for payment', async () => {
    mockApi(providers);
    const posted: Record<string, string>[] = [];
    vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(function (this: HTMLFormElement) {
      posted.push({ action: this.getAttribute('action') ?? '', ...(Object.fromEntries(new FormData(this)) as Record<string, string>) });
    });
    const user = userEvent.setup();
    renderTrip(unpaid());
    await user.click(screen.getByTestId('pay-booking'));
    const chooser = await screen.findByTestId('payment-dialog');
    expect(chooser).toHaveTextContent('Amount due: $12.40');
    await user.click(within(chooser).getByRole('button', { name: 'Close' }));
    await vi.waitFor(() => expect(screen.queryByTestId('payment-dialog')).not.toBeInTheDocument(), { timeout: 4000 });
    expect(screen.getByTestId('payment-needed')).toBeInTheDocument();
    expect(screen.queryByTestId('finding-driver')).not.toBeInTheDocument();

    await user.click(screen.getByTestId('pay-booking'));
    await user.click(await screen.findByTestId('provider-test'));
    expect(posted).toEqual([
      expect.objectContaining({
        action: '/api/v1/payments/test/checkout',
        order_id: 'booking-1',
        amount: '12.4',
        success_url: expect.stringMatching(/\/bookings\?trip=booking-1&payment=paid$/),
      }),
    ]);
  });

  it('still says payment is needed after a cancelled checkout', () => {
    mockApi({});
    renderTrip(unpaid(), { path: '/bookings?trip=booking-1&payment=cancelled' });
    expect(screen.getByTestId('payment-outcome')).toHaveTextContent('This booking is still unpaid.');
    expect(screen.getByTestId('payment-needed')).toBeInTheDocument();
  });
});

describe('a trip over and not paid (PENDING)', () => {
  it('reminds the rider of the amount due, with Pay first', async () => {
    mockApi(providers);
    const user = userEvent.setup();
    renderTrip(assigned({ status: 'PENDING', payableAmount: 9.5, payment_mode: 'card' }));
    const due = screen.getByTestId('payment-due');
    expect(within(due).getByTestId('payment-due-title')).toHaveTextContent('Payment due: $9.50');
    expect(screen.getByTestId('trip-next-step')).toHaveTextContent('Waiting for your payment');
    const pay = within(due).getByTestId('pay-now');
    expect(pay).toHaveTextContent('Pay');
    expect(pay.compareDocumentPosition(within(due).getByTestId('pay-wallet')) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    await user.click(pay);
    expect(await screen.findByTestId('provider-test')).toBeInTheDocument();
  });

  it('at REACHED offers the wallet, the card and cash, without the reminder', () => {
    mockApi({});
    renderTrip(assigned({ status: 'REACHED', payableAmount: 9.5 }));
    expect(screen.getByTestId('payment-due')).toHaveTextContent('Your trip has ended. Amount due: $9.50');
    expect(screen.queryByTestId('payment-due-title')).not.toBeInTheDocument();
    expect(screen.getByTestId('trip-next-step')).toHaveTextContent('Trip over: pay in cash, from your wallet or by card');
  });
});

describe('rating is optional', () => {
  it('says when an unrated trip closes by itself', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(at(14, 0));
    mockApi({});
    renderTrip(assigned({ status: 'PAID', timers: { generation: 1, auto_complete: { at: at(15, 0), generation: 1 } } }));
    expect(screen.getByTestId('auto-complete')).toHaveTextContent('If you do not rate, the trip closes by itself at 15:00.');
    expect(screen.getByTestId('trip-next-step')).toHaveTextContent('Rate your driver, or skip');
  });

  it('skips, and says the trip is closed', async () => {
    const api = mockApi({ 'POST /api/v1/bookings/booking-1/rate': () => assigned({ status: 'COMPLETE', rating: null, version: 9 }) });
    const user = userEvent.setup();
    renderTrip(assigned({ status: 'PAID', version: 8 }));
    await user.click(screen.getByTestId('rate-skip'));
    await vi.waitFor(() => expect(api.calls.find((call) => call.path.endsWith('/rate'))?.body).toEqual({ skip: true }));
    expect(await screen.findByTestId('trip-complete')).toHaveTextContent('Trip closed');
    expect(screen.queryByTestId('rating-panel')).not.toBeInTheDocument();
    expect(screen.getByTestId('trip-next-step')).toHaveTextContent('Trip complete');
  });

  it('rates, and thanks the rider for it', async () => {
    mockApi({ 'POST /api/v1/bookings/booking-1/rate': () => assigned({ status: 'COMPLETE', rating: 5, version: 9 }) });
    const user = userEvent.setup();
    renderTrip(assigned({ status: 'PAID', version: 8 }));
    fireEvent.click(screen.getByLabelText('5 stars'));
    await user.click(screen.getByTestId('rate-submit'));
    expect(await screen.findByTestId('trip-complete')).toHaveTextContent('Thanks! Your rating was sent.');
  });

  it('shows a refused skip in words and keeps the panel', async () => {
    mockApi({ 'POST /api/v1/bookings/booking-1/rate': () => ({ status: 409, body: { error: { code: 'status_not_allowed', message: '' } } }) });
    const user = userEvent.setup();
    renderTrip(assigned({ status: 'PAID' }));
    await user.click(screen.getByTestId('rate-skip'));
    expect(await screen.findByTestId('trip-error')).toBeInTheDocument();
    expect(screen.getByTestId('rating-panel')).toBeInTheDocument();
  });
});

describe('the booked drop and where the trip ended', () => {
  const drop = { lat: 39.2905, lng: -76.5794, add: 'Patterson Park' };
  const farAway = { lat: 39.2795, lng: -76.5735, add: 'Canton Waterfront' };

  it('keeps the booked drop, and adds where the trip ended when it is over 200 m away', () => {
    mockApi({});
    const far = renderTrip(assigned({ status: 'PAID', drop, dropAddress: 'Patterson Park', actualDrop: farAway }));
    expect(screen.getByTestId('drop-address')).toHaveTextContent('Patterson Park');
    expect(screen.getByTestId('ended-at')).toHaveTextContent('Ended at: Canton Waterfront');
    far.unmount();
    const near = renderTrip(assigned({ status: 'PAID', drop, dropAddress: 'Patterson Park', actualDrop: { lat: 39.2910, lng: -76.5794, add: 'Next door' } }));
    expect(screen.getByTestId('drop-address')).toHaveTextContent('Patterson Park');
    expect(screen.queryByTestId('ended-at')).not.toBeInTheDocument();
    near.unmount();
    renderTrip(assigned({ status: 'PAID', drop, dropAddress: 'Patterson Park', actualDrop: { lat: 39.2795, lng: -76.5735, add: '' } }));
    expect(screen.getByTestId('ended-at')).toHaveTextContent('Ended at: 39.27950, -76.57350');
  });

  it("shows both in the rider's bookings table, with a system reason in words", async () => {
    const page: Page<Booking> = {
      items: [
        assigned({ id: 'b-far', reference: 'FARAWY', status: 'COMPLETE', drop, dropAddress: 'Patterson Park', actualDrop: farAway }),
        testBooking({ id: 'b-none', reference: 'NODRVR', status: 'CANCELLED', reason: 'no_driver_available', cancelledBy: 'system' }),
      ],
      next: null,
    };
    mockApi({ 'GET /api/v1/bookings': () => page });
    renderWithProviders(<BookingsTable role="rider" onSelect={() => {}} />, { client: seededClient(testUser()) });
    const rows = await screen.findAllByTestId('booking-row');
    const far = rows.find((row) => row.getAttribute('data-booking-id') === 'b-far')!;
    expect(within(far).getByTestId('drop-address')).toHaveTextContent('Patterson Park');
    expect(within(far).getByTestId('ended-at')).toHaveTextContent('Ended at: Canton Waterfront');
    const cancelled = rows.find((row) => row.getAttribute('data-booking-id') === 'b-none')!;
    expect(cancelled).toHaveTextContent('No driver was available');
    expect(cancelled).not.toHaveTextContent('no_driver_available');
    expect(within(cancelled).queryByTestId('ended-at')).not.toBeInTheDocument();
  });

  it("gives the panel grid's reason column the words too", () => {
    const english = (key: string) => (key === 'reason_payment_not_received' ? 'The payment was not received' : key);
    const reason = panelBookingColumns(testSettings, 'admin').find((column) => column.field === 'reason')!;
    expect(reason.text(testBooking({ reason: 'payment_not_received' }), english)).toBe('The payment was not received');
    expect(reason.text(testBooking({ reason: 'Booked by mistake' }), english)).toBe('Booked by mistake');
  });
});
