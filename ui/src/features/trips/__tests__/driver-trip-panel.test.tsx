import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { assigned } from '@/testing/fixtures';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import { DriverTripPanel } from '../components/driver-trip-panel';

const driver = testUser({ id: 'user-driver-1', usertype: 'driver' });

describe("the driver's trip screen", () => {
  it('starts the trip with the rider\'s otp and says when it is wrong', async () => {
    const api = mockApi({
      'POST /api/v1/bookings/booking-1/start': ({ body }) =>
        (body as { otp: number }).otp === 42673 ? assigned({ status: 'STARTED' }) : apiError(400, 'otp_mismatch'),
    });
    const user = userEvent.setup();
    renderWithProviders(<DriverTripPanel booking={assigned({ status: 'ARRIVED' })} position={null} />, { client: seededClient(driver) });
    await user.type(screen.getByTestId('trip-otp-input'), '123');
    await user.click(screen.getByTestId('trip-start'));
    expect(await screen.findByTestId('driver-trip-error')).toHaveTextContent('The trip code has 5 digits.');
    await user.clear(screen.getByTestId('trip-otp-input'));
    await user.type(screen.getByTestId('trip-otp-input'), '11111');
    await user.click(screen.getByTestId('trip-start'));
    expect(await screen.findByTestId('driver-trip-error')).toHaveTextContent('The trip code is not correct.');
    await user.clear(screen.getByTestId('trip-otp-input'));
    await user.type(screen.getByTestId('trip-otp-input'), '42673');
    await user.click(screen.getByTestId('trip-start'));
    await vi.waitFor(() => expect(api.calls.at(-1)).toMatchObject({ path: '/api/v1/bookings/booking-1/start', body: { otp: 42673 } }));
  });

  it('starts without a code when the booking has none', async () => {
    const api = mockApi({ 'POST /api/v1/bookings/booking-1/start': () => assigned({ status: 'STARTED', otp: false }) });
    const user = userEvent.setup();
    renderWithProviders(<DriverTripPanel booking={assigned({ status: 'ARRIVED', otp: false })} position={null} />, { client: seededClient(driver) });
    expect(screen.queryByTestId('trip-otp-input')).not.toBeInTheDocument();
    await user.click(screen.getByTestId('trip-start'));
    await vi.waitFor(() => expect(api.calls.at(-1)?.body).toEqual({}));
  });

  it('collects cash at the end of the trip', async () => {
    const api = mockApi({ 'POST /api/v1/bookings/booking-1/pay': () => assigned({ status: 'PAID' }) });
    const user = userEvent.setup();
    renderWithProviders(<DriverTripPanel booking={assigned({ status: 'REACHED' })} position={null} />, { client: seededClient(driver) });
    await user.click(screen.getByTestId('trip-collect-cash'));
    await vi.waitFor(() => expect(api.calls.at(-1)?.body).toEqual({ payment_mode: 'cash' }));
    expect(screen.queryByTestId('driver-awaiting-card')).not.toBeInTheDocument();
  });

  it('says when the rider chose to pay by card, and still takes cash', () => {
    mockApi({});
    renderWithProviders(<DriverTripPanel booking={assigned({ status: 'PENDING' })} position={null} />, { client: seededClient(driver) });
    expect(screen.getByTestId('driver-awaiting-card')).toHaveTextContent('The rider chose to pay by card in the app.');
    expect(screen.getByTestId('trip-collect-cash')).toBeEnabled();
  });
});
