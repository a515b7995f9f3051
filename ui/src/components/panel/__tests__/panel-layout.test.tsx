import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { confirm, ConfirmHost } from '@/components/ui/confirm-dialog';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import { PanelLayout } from '../panel-layout';

vi.mock('@/lib/socket', async (original) => ({
  ...(await original<typeof import('@/lib/socket')>()),
  connectSocket: vi.fn(() => ({ on: vi.fn(), off: vi.fn() })),
  disconnectSocket: vi.fn(),
}));

function renderShell(usertype: 'admin' | 'fleetadmin', preload?: (path: string, client: unknown) => void) {
  return renderWithProviders(<></>, {
    client: seededClient(testUser({ id: `${usertype}-1`, usertype, firstName: 'Ada' })),
    path: '/dashboard',
    routes: [
      { element: <PanelLayout preload={preload} />, children: [{ path: '/dashboard', element: <p>the dashboard</p> }] },
      { path: '/', element: <p>the landing page</p> },
    ],
  });
}

describe('the admin shell', () => {
  // jsdom has no media queries: the shell is at a phone's width, the menu in its drawer.
  it('frames the screen with home, the menu of the user type and logout', async () => {
    renderShell('fleetadmin');
    expect(await screen.findByText('the dashboard')).toBeInTheDocument();
    const menu = screen.getByTestId('panel-menu');
    const entries = within(menu)
      .getAllByRole('link', { hidden: true })
      .map((link) => link.textContent);
    expect(entries).toEqual(['Home', 'Dashboard', 'Live dispatch', 'SOS', 'Bookings', 'Drivers', 'Earning reports', 'Money owed', 'Driver earning', 'Profile']);
    expect(within(menu).getByTestId('panel-menu-logout')).toHaveTextContent('Logout');
    expect(within(menu).getByTestId('panel-menu-dashboard')).toHaveClass('Mui-selected');
  });

  it('loads the code of every screen of the menu once the browser is idle, and of a screen pointed at', async () => {
    const preload = vi.fn();
    renderShell('fleetadmin', preload);
    await screen.findByText('the dashboard');
    await vi.waitFor(() => expect(preload).toHaveBeenCalledWith('/bookings', expect.anything()));
    expect(preload.mock.calls.map(([path]) => path)).toEqual(['/dashboard', '/dispatch', '/sos', '/bookings', '/drivers', '/earningreports', '/moneyowed', '/driverearning', '/profile']);
    preload.mockClear();
    await userEvent.setup().hover(screen.getByTestId('panel-menu-drivers'));
    expect(preload).toHaveBeenCalledWith('/drivers', expect.anything());
  });

  it('signs out from the menu and leaves for the home page', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { calls } = mockApi({ 'POST /api/v1/auth/logout': () => ({ signedOut: true }) });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const { router, client } = renderShell('admin');
    await user.click(await screen.findByTestId('panel-menu-logout'));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2100);
    });
    expect(calls.map((call) => `${call.method} ${call.path}`)).toContain('POST /api/v1/auth/logout');
    expect(router.state.location.pathname).toBe('/');
    expect(client.getQueryData(['auth', 'me'])).toBeNull();
    vi.useRealTimers();
  });
});

describe('the confirm dialog', () => {
  it('resolves true on yes and false on cancel, one question at a time', async () => {
    const user = userEvent.setup();
    renderWithProviders(<ConfirmHost />);
    let answer: Promise<boolean>;
    act(() => {
      answer = confirm({ title: 'common.yes', message: 'Delete Nina?', destructive: true });
    });
    expect(await screen.findByTestId('confirm-message')).toHaveTextContent('Delete Nina?');
    await user.click(screen.getByTestId('confirm-ok'));
    await expect(answer!).resolves.toBe(true);
    act(() => {
      answer = confirm({ title: 'common.yes', message: 'Again?' });
    });
    await user.click(await screen.findByTestId('confirm-cancel'));
    await expect(answer!).resolves.toBe(false);
    // A new question while one is open answers the open one "no".
    let first: Promise<boolean>;
    act(() => {
      first = confirm({ title: 'common.yes', message: 'First' });
      answer = confirm({ title: 'common.yes', message: 'Second' });
    });
    await expect(first!).resolves.toBe(false);
    expect(await screen.findByTestId('confirm-message')).toHaveTextContent('Second');
  });
});
