import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfirmHost } from '@/components/ui/confirm-dialog';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import { AddToWallet } from '../components/add-to-wallet';

const admin = testUser({ id: 'admin-1', usertype: 'admin' });
const rita = testUser({ id: 'rider-9', firstName: 'Rita', lastName: 'Rider', walletBalance: 25.5 });

type Handlers = Parameters<typeof mockApi>[0];

function serve(extra: Handlers, balance = { value: 25.5 }) {
  return mockApi({
    'GET /api/v1/users': ({ url }) => ({ items: url.searchParams.get('role') === 'rider' ? [rita] : [], next: null }),
    'GET /api/v1/users/rider-9/wallet': () => ({ walletBalance: balance.value, walletHistory: [], next: null }),
    ...extra,
  });
}

function renderScreen() {
  return renderWithProviders(
    <>
      <AddToWallet />
      <ConfirmHost />
    </>,
    { client: seededClient(admin) },
  );
}

async function pickRita(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByTestId('wallet-user-input'), 'Rita');
  await user.click(await screen.findByTestId('wallet-user-option'));
  await waitFor(() => expect(screen.getByTestId('wallet-current-balance')).toHaveTextContent('Current balance: $25.50'));
}

const posts = (api: ReturnType<typeof mockApi>) => api.calls.filter((call) => call.method === 'POST');

afterEach(() => vi.restoreAllMocks());

describe('the admin’s wallet tools', () => {
  it('debits a wallet with a reason after confirming, once per key, and shows the new balance', async () => {
    const balance = { value: 25.5 };
    const api = serve(
      {
        'POST /api/v1/users/rider-9/wallet/debit': ({ body }) => {
          balance.value -= (body as { amount: number }).amount;
          return { status: 201, body: { user: 'rider-9', walletBalance: balance.value, applied: true } };
        },
      },
      balance,
    );
    const user = userEvent.setup();
    renderScreen();
    await user.click(screen.getByTestId('wallet-kind-debit'));
    expect(screen.getByTestId('add-to-wallet')).toHaveAttribute('data-kind', 'debit');
    await pickRita(user);
    await user.type(screen.getByTestId('wallet-amount'), '5.5');
    await user.click(screen.getByTestId('wallet-submit'));
    // The reason is asked for before anything is sent.
    expect(screen.getByTestId('add-to-wallet')).toHaveTextContent('Say why the wallet changes.');
    expect(posts(api)).toHaveLength(0);
    await user.type(screen.getByTestId('wallet-reason'), 'Damaged seat');
    await user.click(screen.getByTestId('wallet-submit'));
    const confirmDialog = await screen.findByTestId('confirm-dialog');
    expect(within(confirmDialog).getByTestId('confirm-message')).toHaveTextContent("$5.50 is taken out of Rita Rider's wallet (now $25.50).");
    await user.click(within(confirmDialog).getByTestId('confirm-ok'));
    expect(await screen.findByTestId('wallet-credited')).toHaveTextContent("Rita Rider's wallet was debited. New balance: $20.00");
    expect(posts(api).map((call) => [call.path, call.body])).toEqual([['/api/v1/users/rider-9/wallet/debit', { amount: 5.5, reason: 'Damaged seat' }]]);
    expect(posts(api)[0].headers['idempotency-key']).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('wallet-current-balance')).toHaveTextContent('Current balance: $20.00'));
  });

  it('shows a refusal with the shared error display and its translation, and retries with the same key', async () => {
    let answers = 0;
    const api = serve({
      'POST /api/v1/users/rider-9/wallet/debit': () => {
        answers += 1;
        return answers === 1 ? apiError(409, 'insufficient_wallet_balance') : { status: 200, body: { user: 'rider-9', walletBalance: 25.5, applied: false } };
      },
    });
    const user = userEvent.setup();
    renderScreen();
    await user.click(screen.getByTestId('wallet-kind-debit'));
    await pickRita(user);
    await user.type(screen.getByTestId('wallet-amount'), '100');
    await user.type(screen.getByTestId('wallet-reason'), 'Fine');
    await user.click(screen.getByTestId('wallet-submit'));
    await user.click(within(await screen.findByTestId('confirm-dialog')).getByTestId('confirm-ok'));
    const error = await screen.findByTestId('server-error');
    expect(error).toHaveAttribute('data-code', 'insufficient_wallet_balance');
    expect(error).toHaveTextContent('Your wallet balance is too low.');
    await user.click(screen.getByTestId('wallet-submit'));
    await user.click(within(await screen.findByTestId('confirm-dialog')).getByTestId('confirm-ok'));
    // The server had it already: nothing moved, and the screen says so.
    expect(await screen.findByTestId('wallet-credited')).toHaveTextContent("That was already done: Rita Rider's balance is $25.50.");
    expect(screen.queryByTestId('server-error')).not.toBeInTheDocument();
    const [first, second] = posts(api);
    expect(second.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
  });

  it('adjusts a wallet to a balance with a reason, saying first what the difference is', async () => {
    const api = serve({
      'POST /api/v1/users/rider-9/wallet/adjust': ({ body }) => ({ status: 201, body: { user: 'rider-9', walletBalance: (body as { balance: number }).balance, applied: true } }),
    });
    const user = userEvent.setup();
    renderScreen();
    await user.click(screen.getByTestId('wallet-kind-adjust'));
    await pickRita(user);
    expect(screen.getByLabelText('New balance')).toBeInTheDocument();
    await user.type(screen.getByTestId('wallet-amount'), '20');
    expect(screen.getByTestId('add-to-wallet')).toHaveTextContent('A debit of $5.50.');
    await user.type(screen.getByTestId('wallet-reason'), 'Counted twice');
    await user.click(screen.getByTestId('wallet-submit'));
    expect(await screen.findByTestId('confirm-message')).toHaveTextContent("Rita Rider's wallet goes from $25.50 to $20.00.");
    await user.click(screen.getByTestId('confirm-ok'));
    expect(await screen.findByTestId('wallet-credited')).toHaveTextContent("Rita Rider's wallet was adjusted. New balance: $20.00");
    expect(posts(api).map((call) => [call.path, call.body])).toEqual([['/api/v1/users/rider-9/wallet/adjust', { balance: 20, reason: 'Counted twice' }]]);
  });

  it('credits without a reason or a second question, as before', async () => {
    const api = serve({
      'POST /api/v1/users/rider-9/wallet/credit': () => ({ status: 201, body: { user: 'rider-9', walletBalance: 35.5, applied: true } }),
    });
    const user = userEvent.setup();
    renderScreen();
    expect(screen.queryByTestId('wallet-reason')).not.toBeInTheDocument();
    await pickRita(user);
    await user.type(screen.getByTestId('wallet-amount'), '10');
    await user.click(screen.getByTestId('wallet-submit'));
    expect(await screen.findByTestId('wallet-credited')).toHaveTextContent("Rita Rider's wallet was credited. New balance: $35.50");
    expect(screen.queryByTestId('confirm-dialog')).not.toBeInTheDocument();
    expect(posts(api).map((call) => [call.path, call.body])).toEqual([['/api/v1/users/rider-9/wallet/credit', { amount: 10 }]]);
  });
});
