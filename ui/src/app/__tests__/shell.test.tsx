import { act, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Bootstrap } from '@/app/bootstrap';
import { AppProvider } from '@/app/provider';
import { Footer } from '@/components/layout/footer';
import { Header } from '@/components/layout/header';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testQueryClient, testSettings, testUser } from '@/testing/test-utils';

vi.mock('@/lib/socket', async (original) => ({
  ...(await original<typeof import('@/lib/socket')>()),
  connectSocket: vi.fn(() => ({ on: vi.fn(), off: vi.fn() })),
  disconnectSocket: vi.fn(),
}));

describe('the shell', () => {
  it('shows a spinner, then the app titled with the app name', async () => {
    mockApi({
      'GET /api/v1/settings': () => ({ ...testSettings, appName: 'Baltimore Cabs' }),
      'GET /api/v1/cartypes': () => [],
    });
    render(
      <AppProvider queryClient={testQueryClient()}>
        <Bootstrap>
          <p>the app</p>
        </Bootstrap>
      </AppProvider>,
    );
    expect(screen.getByRole('status')).toBeInTheDocument();
    expect(await screen.findByText('the app')).toBeInTheDocument();
    expect(document.title).toBe('Baltimore Cabs');
  });

  it("says 'No Database Settings found' when the server has no settings", async () => {
    mockApi({ 'GET /api/v1/settings': () => null, 'GET /api/v1/cartypes': () => [] });
    render(
      <AppProvider queryClient={testQueryClient()}>
        <Bootstrap>
          <p>the app</p>
        </Bootstrap>
      </AppProvider>,
    );
    expect(await screen.findByText('No Database Settings found')).toBeInTheDocument();
    expect(screen.queryByText('the app')).not.toBeInTheDocument();
  });

  it("labels the account link 'login or sign up' for visitors and 'my account' once signed in", async () => {
    const visitor = renderWithProviders(<Header />);
    expect(await screen.findByTestId('nav-account')).toHaveTextContent('Login or sign up');
    visitor.unmount();
    renderWithProviders(<Header />, { client: seededClient(testUser()) });
    expect(await screen.findByTestId('nav-account')).toHaveTextContent('My account');
  });

  it('changes the header colour after 400 px of scroll', async () => {
    renderWithProviders(<Header />);
    const header = await screen.findByTestId('app-header');
    expect(header).toHaveAttribute('data-scrolled', 'false');
    await act(async () => {
      Object.defineProperty(window, 'scrollY', { value: 399, configurable: true });
      window.dispatchEvent(new Event('scroll'));
    });
    expect(header).toHaveAttribute('data-scrolled', 'false');
    await act(async () => {
      Object.defineProperty(window, 'scrollY', { value: 401, configurable: true });
      window.dispatchEvent(new Event('scroll'));
    });
    expect(header).toHaveAttribute('data-scrolled', 'true');
  });

  it('shows social links only for the handles that are set', async () => {
    renderWithProviders(<Header />, { client: seededClient(null, { InstagramHandle: 'wayfare' }) });
    expect(await screen.findAllByRole('link', { name: 'Instagram' })).not.toHaveLength(0);
    expect(screen.queryByRole('link', { name: 'Facebook' })).not.toBeInTheDocument();
  });

  it('ends the page with the footer links and the copyright of the company with its website', async () => {
    renderWithProviders(<Footer />);
    for (const name of ['Home', 'My account', 'About us', 'Contact us', 'Privacy policy']) {
      expect(await screen.findByRole('link', { name })).toBeInTheDocument();
    }
    expect(screen.getByTestId('copyright')).toHaveTextContent(`© ${new Date().getFullYear()} Wayfare Demo`);
    expect(screen.getByRole('link', { name: 'wayfare.example' })).toHaveAttribute('href', 'https://wayfare.example');
  });
});
