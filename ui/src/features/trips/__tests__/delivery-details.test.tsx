import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { assigned } from '@/testing/fixtures';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import { DeliveryDetails } from '../components/delivery-details';
import { DriverTripPanel } from '../components/driver-trip-panel';

const driver = testUser({ id: 'user-driver-1', usertype: 'driver' });

const parcel = {
  appcat: 'delivery' as const,
  parcelTypeSelected: { description: 'Small box', amount: 3 },
  optionSelected: { description: 'Fragile handling', amount: 2 },
  deliveryPerson: 'Omar Khalil',
  deliveryPersonPhone: '410 555 0199',
  pickUpInstructions: 'Ring twice',
  deliveryInstructions: '',
};

describe('a parcel booking on the trip screens', () => {
  it('shows the parcel, the delivery person and the instructions given, with their amounts', () => {
    renderWithProviders(<DeliveryDetails booking={assigned(parcel)} />, { client: seededClient(driver) });
    expect(screen.getByTestId('delivery-detail-parcel-type')).toHaveTextContent('Small box ($3.00)');
    expect(screen.getByTestId('delivery-detail-parcel-option')).toHaveTextContent('Fragile handling ($2.00)');
    expect(screen.getByTestId('delivery-detail-delivery-person')).toHaveTextContent('Omar Khalil');
    expect(screen.getByTestId('delivery-detail-delivery-phone')).toHaveTextContent('410 555 0199');
    expect(screen.getByTestId('delivery-detail-pickup-instructions')).toHaveTextContent('Ring twice');
    expect(screen.queryByTestId('delivery-detail-delivery-instructions')).not.toBeInTheDocument();
    expect(screen.queryByTestId('parcel-photo-pickup')).not.toBeInTheDocument();
  });

  it('shows the pickup and delivery photos once the driver took them', () => {
    const booking = assigned({ ...parcel, pickup_image: '/api/v1/files/pickup-1', deliver_image: '/api/v1/files/deliver-1' });
    renderWithProviders(<DeliveryDetails booking={booking} />, { client: seededClient(driver) });
    expect(screen.getByTestId('parcel-photo-pickup')).toHaveAttribute('src', '/api/v1/files/pickup-1');
    expect(screen.getByTestId('parcel-photo-deliver')).toHaveAttribute('src', '/api/v1/files/deliver-1');
  });

  it('shows nothing for a taxi booking', () => {
    renderWithProviders(<DeliveryDetails booking={assigned({ ...parcel, appcat: 'taxi' })} />, { client: seededClient(driver) });
    expect(screen.queryByTestId('delivery-details')).not.toBeInTheDocument();
  });

  it('lets the driver finish a prepaid delivery with nothing to collect', async () => {
    const api = mockApi({ 'POST /api/v1/bookings/booking-1/pay': () => assigned({ ...parcel, status: 'PAID', prepaid: true }) });
    const user = userEvent.setup();
    const booking = assigned({ ...parcel, status: 'REACHED', prepaid: true, payment_mode: 'card', payableAmount: 13.97 });
    renderWithProviders(<DriverTripPanel booking={booking} position={null} />, { client: seededClient(driver) });
    expect(screen.queryByTestId('trip-collect-cash')).not.toBeInTheDocument();
    expect(screen.getByText('The sender paid $13.97 by card. Hand over the parcel, then finish the delivery.')).toBeInTheDocument();
    await user.click(screen.getByTestId('trip-finish'));
    await vi.waitFor(() => expect(api.calls.at(-1)).toMatchObject({ path: '/api/v1/bookings/booking-1/pay', body: {} }));
  });
});
