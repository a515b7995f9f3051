import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { notificationsAtom } from '@/components/ui/notifications/notifications-store';
import { appStore } from '@/lib/store';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { StatementTotals, StatementWeek } from '@/types/api';
import { WeeklyStatements } from '../components/weekly-statements';
import { balanceKey, weekDays } from '../lib/statement-week';

const driver = testUser({ id: 'user-driver-1', usertype: 'driver' });

const totals = (overrides: Partial<StatementTotals>): StatementTotals => ({
  rides: 0,
  trip_cost: 0,
  driver_share: 0,
  convenience_fees: 0,
  discount_amount: 0,
  cash_collected: 0,
  card_paid: 0,
  wallet_paid: 0,
  cancellation_fee: 0,
  earnings: 0,
  balance: 0,
  ...overrides,
});

const week = (name: string, overrides: Partial<StatementTotals>): StatementWeek => ({ week: name, from: 0, until: 0, totals: totals(overrides) });

afterEach(() => {
  vi.restoreAllMocks();
  appStore.set(notificationsAtom, []);
});

describe("a statement's week", () => {
  it('is Monday to Sunday of its ISO week, across a new year too', () => {
    const days = (name: string) => {
      const found = weekDays(name);
      return found && [found.monday.toDateString(), found.sunday.toDateString()];
    };
    expect(days('2026-W47')).toEqual([new Date(2026, 10, 16).toDateString(), new Date(2026, 10, 22).toDateString()]);
    // 1 January 2026 is a Thursday: week 1 starts on 29 December 2025.
    expect(days('2026-W01')).toEqual([new Date(2025, 11, 29).toDateString(), new Date(2026, 0, 4).toDateString()]);
    expect(days('2020-W53')).toEqual([new Date(2020, 11, 28).toDateString(), new Date(2021, 0, 3).toDateString()]);
    expect(weekDays('2026-W00')).toBeNull();
    expect(weekDays('2026-47')).toBeNull();
  });

  it('says who owes whom', () => {
    expect(balanceKey(12.5)).toBe('statements.platform_owes');
    expect(balanceKey(-3)).toBe('statements.driver_owes');
    expect(balanceKey(0)).toBe('statements.settled');
  });
});

describe("the driver's weekly statements", () => {
  it('lists each week, newest first, with its rides, earnings and who owes whom', async () => {
    mockApi({
      'GET /api/v1/drivers/me/statements': () => ({
        weeks: [week('2026-W47', { rides: 3, earnings: 27, cash_collected: 15, balance: 12 }), week('2026-W46', { rides: 1, earnings: 9, cash_collected: 11.5, balance: -2.5 })],
      }),
    });
    renderWithProviders(<WeeklyStatements driverId={driver.id} />, { client: seededClient(driver) });
    const rows = await screen.findAllByTestId('statement-week');
    expect(rows.map((row) => row.getAttribute('data-week'))).toEqual(['2026-W47', '2026-W46']);
    expect(within(rows[0]).getByRole('heading')).toHaveTextContent('Week 47');
    expect(within(rows[0]).getByTestId('statement-days')).toHaveTextContent('16 Nov – 22 Nov 2026');
    expect(within(rows[0]).getByTestId('statement-rides')).toHaveTextContent('3 rides');
    expect(within(rows[0]).getByTestId('statement-earnings')).toHaveTextContent('Earnings $27.00');
    expect(within(rows[0]).getByTestId('statement-balance')).toHaveTextContent('The platform owes you $12.00');
    expect(within(rows[1]).getByTestId('statement-rides')).toHaveTextContent('1 ride');
    expect(within(rows[1]).getByTestId('statement-balance')).toHaveTextContent('You owe the platform $2.50');
  });

  it("downloads a week's PDF and opens its page, from the driver's own statement route", async () => {
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (input: RequestInfo | URL) => {
      const url = new URL(String(input), 'http://localhost');
      asked.push(`${url.pathname}${url.search}`);
      if (url.pathname === '/api/v1/drivers/me/statements') {
        return new Response(JSON.stringify({ weeks: [week('2026-W47', { rides: 2, earnings: 18, balance: 18 })] }), { headers: { 'content-type': 'application/json' } });
      }
      const pdf = url.searchParams.get('format') === 'pdf';
      return new Response(pdf ? '%PDF-1.7' : '<html></html>', {
        headers: pdf ? { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="statement-2026-W47.pdf"' } : { 'content-type': 'text/html' },
      });
    });
    URL.createObjectURL = vi.fn(() => 'blob:statement');
    URL.revokeObjectURL = vi.fn();
    const saved: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    const opened = vi.spyOn(window, 'open').mockImplementation(() => null);
    const user = userEvent.setup();
    renderWithProviders(<WeeklyStatements driverId={driver.id} />, { client: seededClient(driver) });
    await user.click(await screen.findByTestId('statement-pdf'));
    await vi.waitFor(() => expect(saved).toEqual(['statement-2026-W47.pdf']));
    await user.click(screen.getByTestId('statement-view'));
    await vi.waitFor(() => expect(opened).toHaveBeenCalledWith('blob:statement', '_blank', 'noopener'));
    expect(asked.slice(1)).toEqual([
      '/api/v1/drivers/user-driver-1/statements?week=2026-W47&format=pdf',
      '/api/v1/drivers/user-driver-1/statements?week=2026-W47&format=html',
    ]);
  });

  it('says when there is no week yet, and shows a refusal with the server error display', async () => {
    mockApi({ 'GET /api/v1/drivers/me/statements': () => ({ weeks: [] }) });
    const view = renderWithProviders(<WeeklyStatements driverId={driver.id} />, { client: seededClient(driver) });
    expect(await screen.findByTestId('statements-empty')).toHaveTextContent('No statements yet');
    view.unmount();
    mockApi({ 'GET /api/v1/drivers/me/statements': () => apiError(403, 'not_allowed') });
    renderWithProviders(<WeeklyStatements driverId={driver.id} />, { client: seededClient(driver) });
    const error = await screen.findByTestId('server-error');
    expect(error).toHaveAttribute('data-code', 'not_allowed');
    expect(error).toHaveTextContent('You are not allowed to do that.');
  });

  it('tells a failed download with the translated error', async () => {
    mockApi({
      'GET /api/v1/drivers/me/statements': () => ({ weeks: [week('2026-W47', { rides: 1, earnings: 9, balance: 9 })] }),
      'GET /api/v1/drivers/user-driver-1/statements': () => apiError(404, 'not_found'),
    });
    const user = userEvent.setup();
    renderWithProviders(<WeeklyStatements driverId={driver.id} />, { client: seededClient(driver) });
    await user.click(await screen.findByTestId('statement-pdf'));
    await vi.waitFor(() => expect(appStore.get(notificationsAtom).map((entry) => entry.message)).toContain('Not found.'));
  });
});
