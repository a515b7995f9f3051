import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { GatewayView } from '@/types/api';
import { PaymentGateways } from '../components/payment-gateways';

const admin = testUser({ id: 'admin-1', usertype: 'admin' });

const stripe: GatewayView = {
  name: 'stripe',
  active: false,
  testing: false,
  usable: false,
  missing: ['stripe_private_key', 'webhook_secret'],
  inFile: false,
  activeInFile: false,
  testingInFile: false,
  webhookUrl: 'https://ride.example.com/api/v1/payments/stripe/webhook',
  fields: [
    { name: 'stripe_private_key', kind: 'secret', required: true, set: false, inFile: false },
    { name: 'stripe_public_key', kind: 'text', required: false, set: true, inFile: false, value: 'pk_test_1' },
    { name: 'webhook_secret', kind: 'secret', required: true, set: true, inFile: false },
  ],
};

const test: GatewayView = { ...stripe, name: 'test', active: true, usable: true, missing: [], inFile: true, activeInFile: true, testingInFile: true, fields: [], webhookUrl: '' };

function renderScreen(put: (body: unknown) => unknown = () => ({ ...stripe, active: true })) {
  const api = mockApi({
    'GET /api/v1/payment-gateways': () => [test, stripe],
    'GET /api/v1/payment-gateways/changes': () => ({
      items: [{ id: 'c1', gateway: 'stripe', changedBy: 'admin-1', changedByName: 'Ada Admin', changedAt: 1_800_000_000_000, changed: ['active', 'stripe_private_key'] }],
      next: null,
    }),
    'PUT /api/v1/payment-gateways/stripe': ({ body }) => put(body),
  });
  renderWithProviders(<PaymentGateways />, { client: seededClient(admin) });
  return api;
}

describe('the payment settings screen', () => {
  it('lists each gateway with its state and who changed what', async () => {
    renderScreen();
    expect(await screen.findByTestId('gateway-status-stripe')).toHaveTextContent('Off');
    expect(screen.getByTestId('gateway-status-test')).toHaveTextContent('On');
    const grid = screen.getByTestId('gateways-grid');
    expect(within(grid).getByText('Stripe')).toBeInTheDocument();
    expect(within(grid).getByText('stripe_private_key, webhook_secret')).toBeInTheDocument();
    const history = screen.getByTestId('gateway-changes');
    expect(await within(history).findByText('Ada Admin')).toBeInTheDocument();
    expect(within(history).getByText('active, stripe_private_key')).toBeInTheDocument();
  });

  it('sets a gateway up: a secret typed is sent once and never shown, the webhook address is given', async () => {
    const api = renderScreen();
    const user = userEvent.setup();
    const row = (await within(await screen.findByTestId('gateways-grid')).findByText('Stripe')).closest('[role="row"]') as HTMLElement;
    await user.click(within(row).getByRole('menuitem', { name: 'Edit' }));
    const dialog = await screen.findByTestId('gateway-dialog');
    expect(within(dialog).getByTestId('gateway-webhook')).toHaveTextContent('https://ride.example.com/api/v1/payments/stripe/webhook');
    const secret = within(dialog).getByTestId('gateway-field-stripe_private_key');
    expect(secret).toHaveValue('');
    expect(secret).toHaveAttribute('type', 'password');
    expect(within(dialog).getByText('Set. Type a new value to replace it.')).toBeInTheDocument();
    await user.click(within(dialog).getByTestId('gateway-active'));
    expect(within(dialog).getByTestId('gateway-missing')).toHaveTextContent('stripe_private_key');
    await user.type(secret, 'sk_live_1');
    expect(within(dialog).queryByTestId('gateway-missing')).not.toBeInTheDocument();
    await user.click(within(dialog).getByTestId('gateway-save'));
    await vi.waitFor(() =>
      expect(api.calls.find((call) => call.method === 'PUT')?.body).toEqual({ active: true, fields: { stripe_private_key: 'sk_live_1' } }),
    );
    await vi.waitFor(() => expect(screen.queryByTestId('gateway-dialog')).not.toBeInTheDocument());
  });

  it("shows the server's refusal in the dialog and keeps it open", async () => {
    renderScreen(() => apiError(409, 'secrets_key_missing'));
    const user = userEvent.setup();
    const row = (await within(await screen.findByTestId('gateways-grid')).findByText('Stripe')).closest('[role="row"]') as HTMLElement;
    await user.click(within(row).getByRole('menuitem', { name: 'Edit' }));
    const dialog = await screen.findByTestId('gateway-dialog');
    await user.type(within(dialog).getByTestId('gateway-field-stripe_private_key'), 'sk_live_1');
    await user.click(within(dialog).getByTestId('gateway-save'));
    expect(await within(dialog).findByTestId('gateway-error')).toHaveTextContent('payments.secrets_key');
  });
});
