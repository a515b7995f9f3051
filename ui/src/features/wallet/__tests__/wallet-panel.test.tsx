import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { WithdrawRequest } from '@/types/api';
import { transactionLabel, WalletPanel } from '../components/wallet-panel';

const driver = testUser({ id: 'user-driver-1', usertype: 'driver', firstName: 'Driver', lastName: 'One' });
const walletPath = 'GET /api/v1/users/user-driver-1/wallet';
const providers = { 'GET /api/v1/payments/providers': () => [{ name: 'test', link: '/api/v1/payments/test/checkout' }] };

function withdrawal(amount: number, overrides: Partial<WithdrawRequest> = {}): WithdrawRequest {
  return { id: `w-${amount}`, uid: 'user-driver-1', name: 'Driver One', amount, date: 1_700_000_000_000, bankName: '', bankCode: '', bankAccount: '', processed: false, procesDate: null, ...overrides };
}

/** Catches the checkout form the app posts to the gateway (jsdom cannot navigate). */
function catchPostedForms() {
  const posted: { action: string; fields: Record<string, string> }[] = [];
  vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(function (this: HTMLFormElement) {
    posted.push({ action: this.getAttribute('action') ?? '', fields: Object.fromEntries(new FormData(this)) as Record<string, string> });
  });
  return posted;
}

afterEach(() => vi.restoreAllMocks());

describe('the wallet', () => {
  it('labels each kind of entry, a withdrawal by its kind rather than its request id', () => {
    const t = (key: string, options?: Record<string, unknown>) => (key === 'wallet.tx.TopUp' ? 'Wallet top-up' : key === 'wallet.tx.Withdraw' ? 'Withdrawal' : String(options?.defaultValue ?? key));
    expect(transactionLabel({ type: 'Credit', txRef: 'TopUp' }, t)).toBe('Wallet top-up');
    expect(transactionLabel({ type: 'Withdraw', txRef: '01a1fcb0-aaaa' }, t)).toBe('Withdrawal');
    expect(transactionLabel({ type: 'Credit', txRef: 'Mystery:ABC' }, t)).toBe('Mystery · ABC');
  });

  it('adds money only for a valid amount, then posts the top-up checkout to the chosen provider', async () => {
    mockApi({ [walletPath]: () => ({ walletBalance: 0, walletHistory: [], next: null }), 'GET /api/v1/withdraws': () => ({ items: [], next: null }), ...providers });
    const posted = catchPostedForms();
    const user = userEvent.setup();
    renderWithProviders(<WalletPanel userId="user-driver-1" canWithdraw />, { client: seededClient(driver) });
    await user.click(screen.getByTestId('topup-open'));
    for (const typed of ['0', 'lots', '12.345']) {
      await user.clear(screen.getByTestId('topup-amount'));
      await user.type(screen.getByTestId('topup-amount'), typed);
      await user.click(screen.getByTestId('topup-continue'));
      expect(screen.getByTestId('topup-amount-help')).toHaveTextContent('Please enter a valid amount.');
    }
    expect(screen.queryByTestId('payment-dialog')).not.toBeInTheDocument();
    await user.clear(screen.getByTestId('topup-amount'));
    await user.type(screen.getByTestId('topup-amount'), '25.50');
    await user.click(screen.getByTestId('topup-continue'));
    const chooser = await screen.findByTestId('payment-dialog');
    expect(chooser).toHaveTextContent('Amount due: $25.50');
    await user.click(await within(chooser).findByTestId('provider-test'));
    expect(posted).toHaveLength(1);
    expect(posted[0].action).toBe('/api/v1/payments/test/checkout');
    expect(posted[0].fields).toMatchObject({ amount: '25.5', currency: 'USD', cust_id: 'user-driver-1', product_name: 'Wayfare wallet top-up', quantity: '1' });
    expect(posted[0].fields.order_id).toMatch(/^wallet-/);
    expect(posted[0].fields.success_url).toMatch(/\/bookings\?topup=paid$/);
    expect(posted[0].fields.cancel_url).toMatch(/\/bookings\?topup=cancelled$/);
  });

  it('says how a top-up ended when the gateway sends the payer back', async () => {
    mockApi({ [walletPath]: () => ({ walletBalance: 25.5, walletHistory: [{ type: 'Credit', amount: 25.5, date: 1, txRef: 'TopUp' }], next: null }) });
    renderWithProviders(<WalletPanel userId="user-driver-1" canWithdraw={false} />, { client: seededClient(driver), path: '/bookings?topup=paid' });
    expect(await screen.findByTestId('topup-outcome')).toHaveTextContent('Your top-up was paid. Thank you!');
    expect(await screen.findByText('Wallet top-up')).toBeInTheDocument();
    expect(screen.getByTestId('wallet-balance')).toHaveTextContent('$25.50');
  });

  it('says a cancelled top-up changed nothing, and forgets it once dismissed', async () => {
    mockApi({ [walletPath]: () => ({ walletBalance: 0, walletHistory: [], next: null }) });
    const user = userEvent.setup();
    const { router } = renderWithProviders(<WalletPanel userId="user-driver-1" canWithdraw={false} />, { client: seededClient(driver), path: '/bookings?topup=cancelled' });
    const notice = await screen.findByTestId('topup-outcome');
    expect(notice).toHaveTextContent('The top-up was not completed; your balance has not changed.');
    await user.click(within(notice).getByRole('button'));
    expect(screen.queryByTestId('topup-outcome')).not.toBeInTheDocument();
    expect(router.state.location.search).toBe('');
  });

  it('asks for a withdraw: a bad amount in words, a refusal in words, then the request listed and the balance down', async () => {
    const requests: WithdrawRequest[] = [withdrawal(3, { id: 'w-old', processed: true, procesDate: 1_700_000_100_000 })];
    let balance = 20;
    const api = mockApi({
      [walletPath]: () => ({ walletBalance: balance, walletHistory: [], next: null }),
      'GET /api/v1/withdraws': () => ({ items: requests, next: null }),
      'POST /api/v1/withdraws': ({ body }) => {
        const amount = (body as { amount: number }).amount;
        if (amount > balance) return apiError(409, 'insufficient_wallet_balance');
        balance -= amount;
        const created = withdrawal(amount);
        requests.unshift(created);
        return { status: 201, body: { withdraw: created, walletBalance: balance } };
      },
    });
    const user = userEvent.setup();
    renderWithProviders(<WalletPanel userId="user-driver-1" canWithdraw />, { client: seededClient(driver) });
    await waitFor(() => expect(screen.getByTestId('wallet-balance')).toHaveTextContent('$20.00'));
    expect(await screen.findAllByTestId('withdraw-row')).toHaveLength(1);
    await user.click(screen.getByTestId('withdraw-open'));
    await user.type(screen.getByTestId('withdraw-amount'), '-4');
    await user.click(screen.getByTestId('withdraw-submit'));
    expect(screen.getByTestId('withdraw-error')).toHaveTextContent('Please enter a valid amount.');
    expect(api.calls.some((call) => call.method === 'POST')).toBe(false);
    await user.clear(screen.getByTestId('withdraw-amount'));
    await user.type(screen.getByTestId('withdraw-amount'), '500');
    await user.click(screen.getByTestId('withdraw-submit'));
    await waitFor(() => expect(screen.getByTestId('withdraw-error')).toHaveTextContent('Your wallet balance is too low.'));
    await user.clear(screen.getByTestId('withdraw-amount'));
    await user.type(screen.getByTestId('withdraw-amount'), '7.25');
    await user.click(screen.getByTestId('withdraw-submit'));
    expect(await screen.findByTestId('withdraw-sent')).toHaveTextContent('Your withdrawal request was sent.');
    expect(api.calls.filter((call) => call.method === 'POST').at(-1)?.body).toEqual({ amount: 7.25 });
    await waitFor(() => expect(screen.getByTestId('wallet-balance')).toHaveTextContent('$12.75'));
    const rows = await screen.findAllByTestId('withdraw-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('$7.25');
    expect(rows[0]).toHaveAttribute('data-processed', 'false');
    expect(rows[0]).toHaveTextContent('Requested');
    expect(rows[1]).toHaveAttribute('data-processed', 'true');
  });

  it('shows the spec\'s empty list before any withdraw', async () => {
    mockApi({ [walletPath]: () => ({ walletBalance: 0, walletHistory: [], next: null }), 'GET /api/v1/withdraws': () => ({ items: [], next: null }) });
    renderWithProviders(<WalletPanel userId="user-driver-1" canWithdraw />, { client: seededClient(driver) });
    await waitFor(() => expect(screen.getByTestId('withdraws-empty')).toHaveTextContent('No withdrawal requests yet.'));
    expect(screen.getByTestId('withdraw-open')).toBeDisabled();
  });

  it("shows an admin's debit, adjustment and refund with the reason they gave (issue #37)", async () => {
    mockApi({
      [walletPath]: () => ({
        walletBalance: 4,
        walletHistory: [
          { type: 'Debit', amount: 3, date: 3, txRef: 'AdminAdjust', description: 'Counted twice' },
          { type: 'Debit', amount: 5, date: 2, txRef: 'AdminDebit', description: 'Damaged seat' },
          { type: 'Credit', amount: 2, date: 1, txRef: 'Refund:ABCDEF', description: 'Long detour' },
        ],
        next: null,
      }),
    });
    renderWithProviders(<WalletPanel userId="user-driver-1" canWithdraw={false} />, { client: seededClient(driver) });
    const entries = await screen.findAllByTestId('wallet-entry');
    expect(entries[0]).toHaveTextContent('Adjustment by admin');
    expect(entries[0]).toHaveTextContent('Counted twice');
    expect(entries[1]).toHaveTextContent('Debit by admin');
    expect(entries[1]).toHaveTextContent('Damaged seat');
    expect(entries[2]).toHaveTextContent('Refund · ABCDEF');
    expect(entries[2]).toHaveTextContent('Long detour');
  });
});
