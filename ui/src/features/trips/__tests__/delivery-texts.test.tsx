import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { assigned, testBooking } from '@/testing/fixtures';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { Booking } from '@/types/api';
import { BookingsTable } from '../components/bookings-table';
import { DriverTripPanel } from '../components/driver-trip-panel';
import { PanelBookings } from '../components/panel-bookings';
import { TripView } from '../components/trip-view';

const rider = testUser();
const driver = testUser({ id: 'user-driver-1', usertype: 'driver' });
const admin = testUser({ id: 'admin-1', usertype: 'admin' });
const tracking = { 'GET /api/v1/bookings/booking-1/tracking': () => ({ latest: null, points: [] }) };

function riderSees(booking: Booking, appcat: 'taxi' | 'delivery' = booking.appcat) {
  mockApi(tracking);
  return renderWithProviders(<TripView booking={booking} />, { client: seededClient(rider, { appcat }) });
}

describe("a parcel's trip page speaks of the parcel", () => {
  it('while a driver is sought', () => {
    riderSees(testBooking({ appcat: 'delivery' }));
    expect(screen.getByText('Delivery PWNXZR')).toBeInTheDocument();
    expect(screen.getByTestId('trip-next-step')).toHaveTextContent('Looking for a driver to collect your parcel…');
    expect(screen.getByText('Pickup code — give it to the driver who collects your parcel')).toBeInTheDocument();
  });

  it('on the way, and in the rating panel', () => {
    const started = riderSees(assigned({ appcat: 'delivery', status: 'STARTED' }));
    expect(screen.getByTestId('trip-under-way')).toHaveTextContent('Your parcel is on its way.');
    started.unmount();
    riderSees(assigned({ appcat: 'delivery', status: 'PAID' }));
    expect(screen.getByTestId('rating-panel')).toHaveTextContent('How was your delivery?');
  });

  it("in the booking's own words: a taxi trip made before the switch still reads as a ride", () => {
    const started = riderSees(assigned({ status: 'STARTED' }), 'delivery');
    expect(screen.getByText('Trip PWNXZR')).toBeInTheDocument();
    expect(screen.getByTestId('trip-under-way')).toHaveTextContent('You are on your way.');
    started.unmount();
    riderSees(assigned({ status: 'PAID' }), 'delivery');
    expect(screen.getByTestId('rating-panel')).toHaveTextContent('How was your ride with Driver 1?');
  });
});

describe("the driver's screen of a parcel", () => {
  it('asks for the sender’s code to start, and says where to deliver', () => {
    const parcel = { appcat: 'delivery' as const, deliveryPerson: 'Omar Khalil', deliveryPersonPhone: '410 555 0199' };
    const arrived = renderWithProviders(<DriverTripPanel booking={assigned({ ...parcel, status: 'ARRIVED' })} position={null} />, { client: seededClient(driver) });
    expect(screen.getByLabelText("Sender's pickup code")).toBe(screen.getByTestId('trip-otp-input'));
    expect(screen.getByTestId('trip-start')).toHaveTextContent('Parcel collected: start delivery');
    expect(screen.getByText('Collect the parcel at')).toBeInTheDocument();
    expect(screen.getByText("Recipient's name")).toBeInTheDocument();
    arrived.unmount();
    renderWithProviders(<DriverTripPanel booking={assigned({ ...parcel, status: 'STARTED' })} position={null} />, { client: seededClient(driver) });
    expect(screen.getByText('Deliver to')).toBeInTheDocument();
    expect(screen.getByTestId('trip-reach')).toHaveTextContent('At the delivery address');
  });

  it('keeps the taxi words for a ride', () => {
    renderWithProviders(<DriverTripPanel booking={assigned({ status: 'ARRIVED' })} position={null} />, { client: seededClient(driver, { appcat: 'delivery' }) });
    expect(screen.getByTestId('trip-start')).toHaveTextContent('Start trip');
  });
});

describe('the bookings lists on a delivery platform', () => {
  const headers = () => screen.getAllByRole('columnheader').map((header) => header.textContent?.trim());

  it("name the grid's columns after senders and deliveries", async () => {
    mockApi({ 'GET /api/v1/bookings': () => ({ items: [testBooking({ appcat: 'delivery' })], next: null }) });
    renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin, { appcat: 'delivery' }) });
    await screen.findByText('PWNXZR');
    expect(headers()).toEqual(expect.arrayContaining(['Sender', 'Delivery date', 'Delivery address', 'Delivery cost', 'Recipient']));
    expect(headers()).not.toContain('Customer');
  });

  it('and keep the taxi names on a taxi platform', async () => {
    mockApi({ 'GET /api/v1/bookings': () => ({ items: [testBooking()], next: null }) });
    renderWithProviders(<PanelBookings role="admin" />, { client: seededClient(admin) });
    await screen.findByText('PWNXZR');
    expect(headers()).toEqual(expect.arrayContaining(['Customer', 'Trip date', 'Drop address', 'Trip cost']));
  });

  it("name the rider's own list the same way", async () => {
    mockApi({ 'GET /api/v1/bookings': () => ({ items: [testBooking({ appcat: 'delivery' })], next: null }) });
    renderWithProviders(<BookingsTable role="rider" onSelect={() => {}} />, { client: seededClient(rider, { appcat: 'delivery' }) });
    await screen.findByText('PWNXZR');
    expect(headers()).toEqual(expect.arrayContaining(['Sender', 'Delivery date', 'Delivery address']));
  });
});
