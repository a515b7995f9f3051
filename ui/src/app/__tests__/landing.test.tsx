import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import LandingRoute, { showsBookingForm } from '@/app/routes/landing';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';

describe('the landing page', () => {
  it('offers the booking form to visitors, riders and admins only (the engine rule)', () => {
    expect([undefined, 'rider', 'admin', 'driver', 'fleetadmin'].map((role) => showsBookingForm(role as never))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('shows a fleet admin the fleet slogan instead of the form', async () => {
    renderWithProviders(<LandingRoute />, { client: seededClient(testUser({ usertype: 'fleetadmin' })) });
    const slogan = await screen.findByTestId('driver-slogan');
    expect(slogan).toHaveAttribute('data-role', 'fleetadmin');
    expect(slogan).toHaveTextContent('Your fleet, on every street.');
    expect(screen.queryByTestId('booking-form')).not.toBeInTheDocument();
  });

  it('shows a driver the driver slogan', async () => {
    renderWithProviders(<LandingRoute />, { client: seededClient(testUser({ usertype: 'driver' })) });
    expect(await screen.findByTestId('driver-slogan')).toHaveTextContent('Drive when you want. Earn on every trip.');
  });
});
