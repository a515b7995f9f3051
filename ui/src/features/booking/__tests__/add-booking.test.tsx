import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import AddBookingScreen from '@/app/routes/panel/addbookings';
import { testBooking } from '@/testing/fixtures';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import { adminBookingRuleError } from '../lib/booking-rules';

const admin = testUser({ id: 'admin-1', usertype: 'admin' });
const rita = testUser({ id: 'rider-rita', firstName: 'Rita', lastName: 'Rider', email: 'rita@example.com', mobile: '+14105550111' });
const noPhone = testUser({ id: 'rider-nophone', firstName: 'Nora', lastName: 'Nophone', email: 'nora@example.com', mobile: '' });
const fells = { lat: 39.2825, lng: -76.5927, add: 'Fells Point, Baltimore' };
const park = { lat: 39.2905, lng: -76.5794, add: 'Patterson Park, Baltimore' };
const NOW = 1_800_000_000_000;

const places = {
  'POST /api/v1/geo/autocomplete': ({ body }: { body: unknown }) => ({
    searchResults: (body as { searchKeyword: string }).searchKeyword.startsWith('Fel')
      ? [{ place_id: 'fells', description: 'Fells Point, Baltimore', main_text: 'Fells Point' }]
      : [{ place_id: 'park', description: 'Patterson Park, Baltimore', main_text: 'Patterson Park' }],
  }),
  'POST /api/v1/geo/place': ({ body }: { body: unknown }) =>
    (body as { place_id: string }).place_id === 'fells'
      ? { coords: { lat: fells.lat, lng: fells.lng }, address: fells.add }
      : { coords: { lat: park.lat, lng: park.lng }, address: park.add },
  'POST /api/v1/geo/directions': () => ({ distance_in_km: 2, time_in_secs: 240, polylinePoints: '', coords: [] }),
};

afterEach(() => vi.restoreAllMocks());

describe('add booking (spec §4 "Add booking flow")', () => {
  it('needs a rider, the rider a mobile number, then the trip checks', () => {
    const draft = { pickup: fells, drop: park, carType: 'Economy', bookLater: false, tripDate: null };
    expect(adminBookingRuleError(draft, null, NOW)).toBe('select_proper');
    expect(adminBookingRuleError(draft, noPhone, NOW)).toBe('incomplete_user');
    expect(adminBookingRuleError({ ...draft, drop: null }, rita, NOW)).toBe('select_proper');
    expect(adminBookingRuleError({ ...draft, bookLater: true, tripDate: NOW + 10 * 60_000 }, rita, NOW)).toBe('past_booking_error');
    expect(adminBookingRuleError({ ...draft, bookLater: true, tripDate: NOW + 20 * 60_000 }, rita, NOW)).toBeNull();
    expect(adminBookingRuleError(draft, rita, NOW)).toBeNull();
  });

  it('books for the rider chosen by typing, prices it for them and shows the booking id', async () => {
    const { calls } = mockApi({
      ...places,
      'GET /api/v1/users': ({ url }) => ({
        items: url.searchParams.get('role') === 'rider' && url.searchParams.get('search') === 'rit' ? [rita] : [],
        next: null,
      }),
      'POST /api/v1/bookings/estimate': () => ({ estimateFare: 7.7, convenience_fees: 0.7, distance_in_km: 2, time_in_secs: 240, polylinePoints: '', discount_amount: 0, payableAmount: 7.7, promo_applied: false }),
      'POST /api/v1/bookings': () => ({ status: 201, body: testBooking({ id: 'new-booking-id', reference: 'ADMINB', customer: rita.id, customer_name: 'Rita Rider' }) }),
    });
    const user = userEvent.setup();
    renderWithProviders(<AddBookingScreen />, { client: seededClient(admin) });
    // Without a rider the form refuses at once, asking for what is missing.
    await user.click(screen.getByTestId('book-button'));
    expect(await screen.findByTestId('alert-message')).toHaveTextContent('Please choose all the required details.');
    await user.click(screen.getByTestId('alert-ok'));

    await user.type(screen.getByTestId('rider-picker-input'), 'rit');
    await user.click(await screen.findByTestId('rider-picker-option'));
    expect(screen.getByTestId('rider-picker-input')).toHaveValue('Rita Rider');
    await user.type(screen.getByTestId('pickup-input'), 'Fell');
    await user.click(await screen.findByRole('option', { name: /Fells Point/ }));
    await waitFor(() => expect(screen.getByTestId('pickup-input')).toHaveValue('Fells Point, Baltimore'));
    await user.type(screen.getByTestId('drop-input'), 'Patt');
    await user.click(await screen.findByRole('option', { name: /Patterson Park/ }));
    await waitFor(() => expect(screen.getByTestId('drop-input')).toHaveValue('Patterson Park, Baltimore'));
    await user.click(screen.getByTestId('cartype-select'));
    await user.click(await screen.findByTestId('cartype-Economy'));
    await user.click(screen.getByTestId('book-button'));
    const estimate = await screen.findByTestId('estimate-dialog');
    await user.click(within(estimate).getByTestId('confirm-booking'));
    const success = await screen.findByTestId('booking-success');
    expect(within(success).getByTestId('booking-success-id')).toHaveTextContent('Booking id new-booking-id, for Rita Rider.');
    expect(calls.find((call) => call.path === '/api/v1/bookings/estimate')?.body).toMatchObject({ customer: rita.id, carType: 'Economy' });
    expect(calls.find((call) => call.path === '/api/v1/bookings')?.body).toMatchObject({ customer: rita.id, bookLater: false, pickup: fells, drop: park });
  });
});
