import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import { ProfileForm } from '../components/profile-form';
import { emailLocked, phoneLocked } from '../lib/profile-rules';

describe('the profile', () => {
  it('locks the e-mail for email, admin and registration accounts and the phone for mobile, admin and registration', () => {
    expect(['email', 'admin', 'registration'].every((type) => emailLocked(type as never))).toBe(true);
    expect(emailLocked('mobile')).toBe(false);
    expect(['mobile', 'admin', 'registration'].every((type) => phoneLocked(type as never))).toBe(true);
    expect(phoneLocked('email')).toBe(false);
  });

  it('shows the user type read-only and the locked e-mail of an e-mail account', () => {
    const user = testUser({ firstName: 'Ada' });
    renderWithProviders(<ProfileForm user={user} />, { client: seededClient(user) });
    expect(screen.getByTestId('profile-email')).toBeDisabled();
    expect(screen.getByTestId('profile-mobile')).toBeEnabled();
    expect(screen.getByDisplayValue('Rider')).toBeDisabled();
  });

  it('checks the e-mail of a phone account', async () => {
    const user = testUser({ regType: 'mobile', email: '' });
    const events = userEvent.setup();
    renderWithProviders(<ProfileForm user={user} />, { client: seededClient(user) });
    await events.type(screen.getByTestId('profile-email'), 'rider@nowhere');
    await events.click(screen.getByTestId('profile-submit'));
    expect(await screen.findByText('Please enter a valid e-mail address.')).toBeInTheDocument();
  });

  it("asks 'phone_no_update' before changing the phone, then saves", async () => {
    const user = testUser();
    const api = mockApi({ 'PATCH /api/v1/users/me': ({ body }) => ({ ...user, ...(body as object) }) });
    const events = userEvent.setup();
    renderWithProviders(<ProfileForm user={user} />, { client: seededClient(user), path: '/profile' });
    await events.clear(screen.getByTestId('profile-mobile'));
    await events.type(screen.getByTestId('profile-mobile'), '+14105559999');
    await events.click(screen.getByTestId('profile-submit'));
    expect(await screen.findByTestId('alert-message')).toHaveTextContent('Changing your mobile number changes how you sign in.');
    await events.click(screen.getByTestId('alert-confirm'));
    await vi.waitFor(() => expect(api.calls.at(-1)?.body).toMatchObject({ mobile: '+14105559999', firstName: 'Rider' }));
    expect(await screen.findByTestId('profile-message')).toHaveTextContent('Your profile was updated.');
  });

  it('says so when the server cannot save profiles yet', async () => {
    const user = testUser();
    mockApi({});
    const events = userEvent.setup();
    renderWithProviders(<ProfileForm user={user} />, { client: seededClient(user) });
    await events.click(screen.getByTestId('profile-submit'));
    expect(await screen.findByTestId('profile-message')).toHaveTextContent('Profile changes cannot be saved yet.');
  });
});
