import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import MoneyOwedScreen from '@/app/routes/panel/moneyowed';
import { ConfirmHost } from '@/components/ui/confirm-dialog';
import { assigned } from '@/testing/fixtures';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { OwedReport } from '@/types/api';

const admin = testUser({ id: 'admin-1', usertype: 'admin' });
const T0 = Date.UTC(2026, 10, 21, 5, 52);

function rowOf(reference: string) {
  return screen.getByText(reference).closest('[role="row"]') as HTMLElement;
}

afterEach(() => vi.restoreAllMocks());

describe('the money owed screen', () => {
  it('lists the unpaid trips and the cancellation fees owed, with their totals, each opening its booking', async () => {
    const report: OwedReport = {
      pending: [
        assigned({ id: 'p1', reference: 'PEND01', status: 'PENDING', payment_mode: 'card', payableAmount: 12.5, trip_end_time: T0 }),
        assigned({ id: 'p2', reference: 'PEND02', status: 'PENDING', payment_mode: 'card', payableAmount: 7.25, trip_end_time: T0 }),
      ],
      fees: [{ booking: 'c1', reference: 'FEE001', customer: 'user-rider-1', customer_name: 'Rita Rider', owed: 3, date: T0 }],
    };
    mockApi({ 'GET /api/v1/reports/owed': () => report });
    const user = userEvent.setup();
    const view = renderWithProviders(<></>, {
      client: seededClient(admin),
      path: '/moneyowed',
      routes: [
        { path: '/moneyowed', element: <MoneyOwedScreen /> },
        { path: '/bookings/:id/manage', element: <p>the booking page</p> },
      ],
    });
    expect(await screen.findByText('PEND01')).toBeInTheDocument();
    expect(screen.getByTestId('owed-trips-total')).toHaveTextContent('2 · $19.75');
    expect(screen.getByTestId('owed-fees-total')).toHaveTextContent('1 · $3.00');
    expect(within(rowOf('PEND01')).getByText('$12.50')).toBeInTheDocument();
    expect(within(rowOf('FEE001')).getByText('Rita Rider')).toBeInTheDocument();
    expect(within(rowOf('FEE001')).getByText('$3.00')).toBeInTheDocument();
    expect(within(rowOf('FEE001')).getByTestId('owed-booking-link')).toHaveAttribute('href', '/bookings/c1/manage');
    await user.click(rowOf('PEND02').querySelector('[data-field="customer_name"]') as HTMLElement);
    expect(await screen.findByText('the booking page')).toBeInTheDocument();
    expect(view.router.state.location.pathname).toBe('/bookings/p2/manage');
  });

  it('marks an unpaid trip paid after the confirm dialog and reads the report again', async () => {
    let report: OwedReport = { pending: [assigned({ id: 'p1', reference: 'PEND01', status: 'PENDING', payableAmount: 12.5 })], fees: [] };
    const { calls } = mockApi({
      'GET /api/v1/reports/owed': () => report,
      'POST /api/v1/bookings/p1/settle': () => {
        report = { pending: [], fees: [] };
        return assigned({ id: 'p1', reference: 'PEND01', status: 'PAID', version: 9 });
      },
    });
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <MoneyOwedScreen />
        <ConfirmHost />
      </>,
      { client: seededClient(admin) },
    );
    await screen.findByText('PEND01');
    expect(screen.getByText('No cancellation fee is owed.')).toBeInTheDocument();
    await user.click(within(rowOf('PEND01')).getByTestId('action-mark-paid'));
    expect(await screen.findByTestId('confirm-message')).toHaveTextContent('the rider paid $12.50 outside the app');
    await user.click(screen.getByTestId('confirm-ok'));
    await waitFor(() => expect(calls.filter((call) => call.method === 'POST').map((call) => [call.path, call.body])).toEqual([['/api/v1/bookings/p1/settle', { mode: 'card' }]]));
    expect(await screen.findByText('No unpaid trip.')).toBeInTheDocument();
  });
});
