import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queryKeys } from '@/lib/query-keys';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testCarTypes, testUser } from '@/testing/test-utils';
import type { Settings } from '@/types/api';
import { CarTypes } from '../components/car-types';

const admin = testUser({ id: 'admin-1', usertype: 'admin' });
const economy = testCarTypes[0];

function openEditor(settings: Partial<Settings>, car = economy) {
  const api = mockApi({
    'GET /api/v1/cartypes': () => [car],
    'PUT /api/v1/cartypes/car-1': ({ body }) => ({ ...car, ...(body as object) }),
  });
  const client = seededClient(admin, settings);
  client.setQueryData(queryKeys.carTypes, [car]);
  renderWithProviders(<CarTypes />, { client });
  return api;
}

async function editEconomy(user: ReturnType<typeof userEvent.setup>) {
  const row = (await screen.findByText('Economy')).closest('[role="row"]') as HTMLElement;
  await user.click(within(row).getByTestId('action-edit'));
  return screen.findByTestId('cartype-dialog');
}

afterEach(() => vi.restoreAllMocks());

describe('the car type editor', () => {
  it('on a delivery platform, shows whether customers must choose an option beside the options, and saves it', async () => {
    const api = openEditor({ appcat: 'delivery' });
    const user = userEvent.setup();
    const dialog = await editEconomy(user);
    const required = within(dialog).getByRole('switch', { name: 'Customers must choose an option' });
    expect(required).not.toBeChecked();
    expect(within(dialog).getByTestId('options-rows')).toBeInTheDocument();
    await user.click(required);
    expect(required).toBeChecked();
    await user.click(within(dialog).getByTestId('cartype-save'));
    await waitFor(() => expect(screen.queryByTestId('cartype-dialog')).not.toBeInTheDocument());
    const put = api.calls.find((call) => call.method === 'PUT');
    expect(put?.path).toBe('/api/v1/cartypes/car-1');
    expect(put?.body).toMatchObject({ optionRequired: true, options: [{ description: 'Fragile handling', amount: 2 }] });
  });

  it('shows a car type that requires an option as such, and sends false when the admin lets customers skip it', async () => {
    const api = openEditor({ appcat: 'delivery' }, { ...economy, optionRequired: true });
    const user = userEvent.setup();
    const dialog = await editEconomy(user);
    const required = within(dialog).getByRole('switch', { name: 'Customers must choose an option' });
    expect(required).toBeChecked();
    await user.click(required);
    await user.click(within(dialog).getByTestId('cartype-save'));
    await waitFor(() => expect(api.calls.some((call) => call.method === 'PUT')).toBe(true));
    expect(api.calls.find((call) => call.method === 'PUT')?.body).toMatchObject({ optionRequired: false });
  });

  it('will not require a choice among no options', async () => {
    const api = openEditor({ appcat: 'delivery' }, { ...economy, options: [] });
    const user = userEvent.setup();
    const dialog = await editEconomy(user);
    await user.click(within(dialog).getByRole('switch', { name: 'Customers must choose an option' }));
    await user.click(within(dialog).getByTestId('cartype-save'));
    expect(within(dialog).getByTestId('options-rows')).toHaveTextContent('Add at least one option before making the choice required.');
    expect(api.calls.some((call) => call.method === 'PUT')).toBe(false);
  });

  it('has no such switch on a taxi platform, and sends no options then', async () => {
    const api = openEditor({ appcat: 'taxi' });
    const user = userEvent.setup();
    const dialog = await editEconomy(user);
    expect(within(dialog).queryByRole('switch', { name: 'Customers must choose an option' })).not.toBeInTheDocument();
    await user.click(within(dialog).getByTestId('cartype-save'));
    await waitFor(() => expect(api.calls.some((call) => call.method === 'PUT')).toBe(true));
    expect(api.calls.find((call) => call.method === 'PUT')?.body).not.toHaveProperty('optionRequired');
  });
});
