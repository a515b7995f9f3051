import { render, screen, within } from '@testing-library/react';
import { RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppProvider } from '@/app/provider';
import { createAppRouter } from '@/app/router';
import { mockApi } from '@/testing/mock-api';
import { seededClient, testUser } from '@/testing/test-utils';
import type { User } from '@/types/api';

vi.mock('@/lib/socket', async (original) => ({
  ...(await original<typeof import('@/lib/socket')>()),
  connectSocket: vi.fn(() => ({ on: vi.fn(), off: vi.fn(), connected: false })),
  disconnectSocket: vi.fn(),
}));

/** The app's own routes, opened at `path`. */
function openApp(path: string, user: User | null) {
  window.history.pushState({}, '', path);
  mockApi({});
  const router = createAppRouter();
  render(
    <AppProvider queryClient={seededClient(user)}>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return router;
}

afterEach(() => {
  window.history.pushState({}, '', '/');
  vi.unstubAllGlobals();
});

describe('a path the app has no page for', () => {
  it('says so in the site layout, names the path and leads home, instead of sending the visitor to log in', async () => {
    const router = openApp('/no-such-page', null);
    const page = await screen.findByTestId('not-found');
    expect(page).toHaveTextContent('Page not found');
    expect(within(page).getByTestId('not-found-path')).toHaveTextContent('/no-such-page');
    expect(within(page).getByTestId('not-found-home')).toHaveAttribute('href', '/');
    expect(within(page).queryByTestId('not-found-dashboard')).toBeNull();
    expect(screen.getByTestId('app-header')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/no-such-page');
  });

  it("is the same for the panel's mistyped paths, with a way back to the dashboard for an admin", async () => {
    openApp('/dashbord', testUser({ id: 'admin-1', usertype: 'admin' }));
    const page = await screen.findByTestId('not-found');
    expect(within(page).getByTestId('not-found-dashboard')).toHaveAttribute('href', '/dashboard');
    expect(screen.queryByTestId('panel-menu')).toBeNull();
  });
});
