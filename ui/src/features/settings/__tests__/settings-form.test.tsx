import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testSettings, testUser } from '@/testing/test-utils';
import { SettingsForm } from '../components/settings-form';
import { SETTINGS_SECTIONS } from '../lib/settings-fields';

const admin = testUser({ id: 'admin-1', usertype: 'admin' });
const stored = {
  ...testSettings,
  bonus: 5,
  driverRadius: 10,
  dispatchPolicy: 'batch',
  dispatchOfferSeconds: 20,
  dispatchBatchSeconds: 10,
  dispatchWaveSize: 3,
  dispatchMaxWaves: 3,
  dispatchRadiusStep: 1,
  noDriverCancelMinutes: 10,
  autoCompleteMinutes: 60,
  taxName: '',
  taxRate: 0,
  taxIncluded: true,
  taxNumber: '',
};

function renderSettings(saved: Record<string, unknown> = stored) {
  const api = mockApi({
    'GET /api/v1/settings': () => saved,
    'PATCH /api/v1/settings': ({ body }) => ({ ...saved, ...(body as object) }),
  });
  renderWithProviders(<SettingsForm sections={SETTINGS_SECTIONS} path="/settings" testId="settings-form" />, { client: seededClient(admin) });
  return api;
}

describe('the settings screen', () => {
  it('offers the service first with what each choice changes, and saves a switch to parcel delivery', async () => {
    const api = renderSettings();
    const service = await screen.findByTestId('setting-appcat');
    const card = service.closest('.MuiCard-root') as HTMLElement;
    // The first card of the screen.
    expect(screen.getByTestId('settings-form').querySelector('.MuiCard-root')).toBe(card);
    expect(card).toHaveTextContent('Taxi');
    expect(card).toHaveTextContent('Parcel delivery');
    expect(card).toHaveTextContent('Senders book parcels with a recipient and prepay by card.');
    expect(card).toHaveTextContent(/Changes the words of the whole app/);
    expect(screen.getByTestId('setting-appcat-taxi')).toBeChecked();
    const user = userEvent.setup();
    await user.click(screen.getByTestId('setting-appcat-delivery'));
    await user.click(screen.getByTestId('settings-save'));
    await vi.waitFor(() => expect(api.calls.find((call) => call.method === 'PATCH')?.body).toEqual({ appcat: 'delivery' }));
  });

  it('has no control for demo mode', async () => {
    renderSettings({ ...stored, AllowCriticalEditsAdmin: true });
    await screen.findByTestId('setting-appcat');
    expect(screen.queryByTestId('setting-AllowCriticalEditsAdmin')).not.toBeInTheDocument();
    expect(screen.queryByText(/critical edits|demo mode/i)).not.toBeInTheDocument();
  });

  it('checks the two minutes settings on their fields before saving, and sends them as numbers', async () => {
    const api = renderSettings();
    const user = userEvent.setup();
    const cancelAfter = await screen.findByTestId('setting-noDriverCancelMinutes');
    const completeAfter = screen.getByTestId('setting-autoCompleteMinutes');
    expect(cancelAfter).toHaveValue('10');
    expect(completeAfter).toHaveValue('60');
    const cancelField = cancelAfter.closest('.MuiFormControl-root') as HTMLElement;
    expect(cancelField).toHaveTextContent('Cancel a booking no driver takes after');
    expect(cancelField).toHaveTextContent('minutes');
    await user.clear(cancelAfter);
    await user.type(cancelAfter, '0');
    await user.clear(completeAfter);
    await user.type(completeAfter, '20000');
    await user.click(screen.getByTestId('settings-save'));
    expect(within(cancelField).getByText('Between 1 and 1440.')).toBeInTheDocument();
    expect(cancelAfter).toHaveAttribute('aria-invalid', 'true');
    expect(within(completeAfter.closest('.MuiFormControl-root') as HTMLElement).getByText('Between 1 and 10080.')).toBeInTheDocument();
    expect(api.calls.some((call) => call.method === 'PATCH')).toBe(false);
    await user.clear(cancelAfter);
    await user.type(cancelAfter, '15');
    await user.clear(completeAfter);
    await user.type(completeAfter, '120');
    await user.click(screen.getByTestId('settings-save'));
    await vi.waitFor(() => expect(api.calls.find((call) => call.method === 'PATCH')?.body).toEqual({ noDriverCancelMinutes: 15, autoCompleteMinutes: 120 }));
  });
});
