import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ProtectedRoute } from '@/app/routes/protected-route';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';

function routes(path: string) {
  return [
    { path, element: <ProtectedRoute path={path}><p>inside {path}</p></ProtectedRoute> },
    { path: '/login', element: <p>login page</p> },
  ];
}

describe('route guards', () => {
  it('send a visitor who opens /bookings to /login', async () => {
    const { router } = renderWithProviders(<></>, { path: '/bookings', routes: routes('/bookings'), client: seededClient(null) });
    expect(await screen.findByText('login page')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('send a rider who opens /dashboard to /login', async () => {
    const { router } = renderWithProviders(<></>, { path: '/dashboard', routes: routes('/dashboard'), client: seededClient(testUser()) });
    expect(await screen.findByText('login page')).toBeInTheDocument();
    expect(router.state.location.state).toMatchObject({ from: '/dashboard', denied: true });
  });

  it('let an admin open /dashboard and a fleet admin open /drivers', async () => {
    renderWithProviders(<></>, { path: '/dashboard', routes: routes('/dashboard'), client: seededClient(testUser({ usertype: 'admin' })) });
    expect(await screen.findByText('inside /dashboard')).toBeInTheDocument();
  });

  it('keep a fleet admin out of the admins-only settings', async () => {
    renderWithProviders(<></>, { path: '/settings', routes: routes('/settings'), client: seededClient(testUser({ usertype: 'fleetadmin' })) });
    expect(await screen.findByText('login page')).toBeInTheDocument();
  });

  it('let a driver open their bookings', async () => {
    renderWithProviders(<></>, { path: '/bookings', routes: routes('/bookings'), client: seededClient(testUser({ usertype: 'driver' })) });
    expect(await screen.findByText('inside /bookings')).toBeInTheDocument();
  });
});
