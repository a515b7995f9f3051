import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import { toLocalDateTimeValue } from '../lib/booking-rules';
import { BookingForm } from '../components/booking-form';

const places = {
  'POST /api/v1/geo/autocomplete': ({ body }: { body: unknown }) => ({
    searchResults: (body as { searchKeyword: string }).searchKeyword.startsWith('Fel')
      ? [{ place_id: 'fells', description: 'Fells Point, Baltimore', main_text: 'Fells Point' }]
      : [{ place_id: 'park', description: 'Patterson Park, Baltimore', main_text: 'Patterson Park' }],
  }),
  'POST /api/v1/geo/place': ({ body }: { body: unknown }) =>
    (body as { place_id: string }).place_id === 'fells'
      ? { coords: { lat: 39.2825, lng: -76.5927 }, address: 'Fells Point, Baltimore' }
      : { coords: { lat: 39.2905, lng: -76.5794 }, address: 'Patterson Park, Baltimore' },
  'POST /api/v1/geo/directions': () => ({ distance_in_km: 2, time_in_secs: 240, polylinePoints: '', coords: [] }),
  'POST /api/v1/bookings/estimate': () => ({ estimateFare: 7.7, convenience_fees: 0.7, distance_in_km: 2, time_in_secs: 240, polylinePoints: '' }),
};

async function choose(user: ReturnType<typeof userEvent.setup>, kind: 'pickup' | 'drop', typed: string, option: string) {
  await user.type(screen.getByTestId(`${kind}-input`), typed);
  await user.click(await screen.findByRole('option', { name: new RegExp(option) }));
  await vi.waitFor(() => expect(screen.getByTestId(`${kind}-input`)).toHaveValue(`${option}, Baltimore`));
}

async function chooseEconomy(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByTestId('cartype-select'));
  await user.click(await screen.findByTestId('cartype-Economy'));
}

afterEach(() => vi.useRealTimers());

function Where() {
  const location = useLocation();
  return <span data-testid="location">{`${location.pathname}${location.search}`}</span>;
}

describe('the booking form', () => {
  it('tells a visitor to log in when they press book', async () => {
    const user = userEvent.setup();
    renderWithProviders(<BookingForm />);
    await user.click(screen.getByTestId('book-button'));
    expect(await screen.findByTestId('alert-message')).toHaveTextContent('Please log in to book a ride.');
  });

  it('asks for pickup, drop and car type before anything else', async () => {
    const user = userEvent.setup();
    renderWithProviders(<BookingForm />, { client: seededClient(testUser()) });
    await user.click(screen.getByTestId('book-button'));
    expect(await screen.findByTestId('alert-message')).toHaveTextContent('Please choose all the required details.');
  });

  it('searches places 200 ms after the rider stops typing, once', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const api = mockApi(places);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderWithProviders(<BookingForm />, { client: seededClient(testUser()) });
    await user.type(screen.getByTestId('pickup-input'), 'Fell');
    await act(async () => vi.advanceTimersByTime(150));
    expect(api.calls.filter((call) => call.path === '/api/v1/geo/autocomplete')).toHaveLength(0);
    await act(async () => vi.advanceTimersByTime(100));
    await vi.waitFor(() => expect(api.calls.filter((call) => call.path === '/api/v1/geo/autocomplete')).toHaveLength(1));
    expect(api.calls[0].body).toEqual({ searchKeyword: 'Fell' });
  });

  it('resets the date when switching between Book Now and Book Later', async () => {
    const user = userEvent.setup();
    renderWithProviders(<BookingForm />, { client: seededClient(testUser()) });
    await user.click(screen.getByTestId('booking-type-select'));
    await user.click(await screen.findByTestId('book-later-option'));
    const date = screen.getByTestId('trip-date');
    fireEvent.change(date, { target: { value: toLocalDateTimeValue(Date.now() + 3_600_000) } });
    expect(date).not.toHaveValue('');
    await user.click(screen.getByTestId('booking-type-select'));
    await user.click(await screen.findByTestId('book-now-option'));
    expect(screen.queryByTestId('trip-date')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('booking-type-select'));
    await user.click(await screen.findByTestId('book-later-option'));
    expect(screen.getByTestId('trip-date')).toHaveValue('');
  });

  it('refuses a Book Later trip 10 minutes ahead with past_booking_error', async () => {
    mockApi(places);
    const user = userEvent.setup();
    renderWithProviders(<BookingForm />, { client: seededClient(testUser()) });
    await choose(user, 'pickup', 'Fel', 'Fells Point');
    await choose(user, 'drop', 'Pat', 'Patterson Park');
    await chooseEconomy(user);
    await user.click(screen.getByTestId('booking-type-select'));
    await user.click(await screen.findByTestId('book-later-option'));
    fireEvent.change(screen.getByTestId('trip-date'), { target: { value: toLocalDateTimeValue(Date.now() + 10 * 60_000) } });
    await user.click(screen.getByTestId('book-button'));
    expect(await screen.findByTestId('alert-message')).toHaveTextContent('A Book Later trip must be at least 15 minutes from now.');
  });

  it('shows the estimate, then books and offers the trip', async () => {
    const api = mockApi({
      ...places,
      'POST /api/v1/bookings': ({ body }) => ({ id: 'b-1', reference: 'PWNXZR', status: 'NEW', bookLater: false, ...(body as object) }),
    });
    const user = userEvent.setup();
    renderWithProviders(<BookingForm />, { client: seededClient(testUser()) });
    await choose(user, 'pickup', 'Fel', 'Fells Point');
    await choose(user, 'drop', 'Pat', 'Patterson Park');
    await chooseEconomy(user);
    await user.click(screen.getByTestId('book-button'));
    const dialog = await screen.findByTestId('estimate-dialog');
    expect(within(dialog).getByTestId('estimate-fare')).toHaveTextContent('$7.70');
    await user.click(within(dialog).getByTestId('confirm-booking'));
    expect(await screen.findByTestId('booking-success')).toHaveTextContent('Your booking PWNXZR is placed.');
    const created = api.calls.find((call) => call.method === 'POST' && call.path === '/api/v1/bookings');
    expect(created?.body).toMatchObject({
      carType: 'Economy',
      bookLater: false,
      pickup: { lat: 39.2825, lng: -76.5927, add: 'Fells Point, Baltimore' },
      drop: { lat: 39.2905, lng: -76.5794, add: 'Patterson Park, Baltimore' },
    });
  });

  it('takes the rider to a booking left unpaid when the payment chooser is closed', async () => {
    mockApi({
      ...places,
      'POST /api/v1/bookings': ({ body }) => ({ id: 'b-7', reference: 'PAYLTR', status: 'PAYMENT_PENDING', bookLater: false, estimate: 7.7, trip_cost: 7.7, ...(body as object) }),
      'GET /api/v1/payments/providers': () => [{ name: 'test', link: '/api/v1/payments/test/checkout' }],
    });
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <BookingForm />
        <Where />
      </>,
      { client: seededClient(testUser()) },
    );
    await choose(user, 'pickup', 'Fel', 'Fells Point');
    await choose(user, 'drop', 'Pat', 'Patterson Park');
    await chooseEconomy(user);
    await user.click(screen.getByTestId('book-button'));
    await user.click(within(await screen.findByTestId('estimate-dialog')).getByTestId('confirm-booking'));
    const chooser = await screen.findByTestId('payment-dialog');
    expect(screen.queryByTestId('booking-success')).not.toBeInTheDocument();
    await user.click(within(chooser).getByRole('button', { name: 'Close' }));
    await vi.waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/bookings?trip=b-7'), { timeout: 4000 });
    expect(screen.queryByTestId('payment-dialog')).not.toBeInTheDocument();
  });

  it('applies a promo code: the estimate shows the discount, a refused code says why, and the booking keeps the code', async () => {
    const api = mockApi({
      ...places,
      'POST /api/v1/bookings/estimate': ({ body }) => {
        const promo = (body as { promo?: string }).promo;
        if (promo === 'NOPE') return apiError(400, 'promo_invalid');
        const base = { estimateFare: 7.7, convenience_fees: 0.7, distance_in_km: 2, time_in_secs: 240, polylinePoints: '' };
        return promo === 'SAVE2' ? { ...base, promo_applied: true, discount_amount: 2, payableAmount: 5.7 } : base;
      },
      'POST /api/v1/bookings': ({ body }) => ({ id: 'b-2', reference: 'PROMOX', status: 'NEW', bookLater: false, ...(body as object) }),
    });
    const user = userEvent.setup();
    renderWithProviders(<BookingForm />, { client: seededClient(testUser()) });
    await choose(user, 'pickup', 'Fel', 'Fells Point');
    await choose(user, 'drop', 'Pat', 'Patterson Park');
    await chooseEconomy(user);
    await user.click(screen.getByTestId('book-button'));
    const dialog = await screen.findByTestId('estimate-dialog');
    expect(within(dialog).queryByTestId('estimate-discount')).toBeNull();
    await user.type(within(dialog).getByTestId('promo-code'), 'nope');
    await user.click(within(dialog).getByTestId('promo-apply'));
    expect(await within(dialog).findByText('This promo code is not valid.')).toBeInTheDocument();
    expect(within(dialog).getByTestId('estimate-fare')).toHaveTextContent('$7.70');
    await user.clear(within(dialog).getByTestId('promo-code'));
    await user.type(within(dialog).getByTestId('promo-code'), 'save2');
    await user.click(within(dialog).getByTestId('promo-apply'));
    expect(await within(dialog).findByTestId('estimate-discount')).toHaveTextContent('Discount $2.00 · you pay $5.70');
    await user.click(within(dialog).getByTestId('confirm-booking'));
    await screen.findByTestId('booking-success');
    const created = api.calls.find((call) => call.method === 'POST' && call.path === '/api/v1/bookings');
    expect(created?.body).toMatchObject({ promo: 'SAVE2', carType: 'Economy' });
  });

  it('asks delivery bookings for the parcel, then the four delivery fields', async () => {
    mockApi(places);
    const user = userEvent.setup();
    renderWithProviders(<BookingForm />, { client: seededClient(testUser(), { appcat: 'delivery' }) });
    await choose(user, 'pickup', 'Fel', 'Fells Point');
    await choose(user, 'drop', 'Pat', 'Patterson Park');
    await chooseEconomy(user);
    await user.click(screen.getByTestId('book-button'));
    const parcel = await screen.findByTestId('parcel-dialog');
    expect(parcel).toHaveTextContent('Small box ($3.00)');
    expect(parcel).toHaveTextContent('Fragile handling ($2.00)');
    await user.click(within(parcel).getByTestId('parcel-confirm'));
    const estimate = await screen.findByTestId('estimate-dialog');
    await user.click(within(estimate).getByTestId('confirm-booking'));
    expect(await within(estimate).findByText("Please enter the delivery person's name and a valid phone number.")).toBeInTheDocument();
  });
});
