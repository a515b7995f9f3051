import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import { LoginForm } from '../components/login-form';
import { codeError, contactError, normaliseContact } from '@/lib/sign-in-rules';

function setup(settings = {}) {
  const onSignedIn = vi.fn();
  const view = renderWithProviders(<LoginForm onSignedIn={onSignedIn} />, { client: seededClient(null, settings) });
  return { ...view, onSignedIn, user: userEvent.setup() };
}

describe('the sign-in rules of spec §5', () => {
  it('ask for a contact, a proper e-mail, or a phone longer than 6 digits', () => {
    expect(contactError('')).toBe('contact_input_error');
    expect(contactError('   ')).toBe('contact_input_error');
    expect(contactError('rider@')).toBe('proper_email');
    expect(contactError('rider1@demo.wayfare')).toBeNull();
    expect(contactError('123 456')).toBe('mobile_no_blank_error');
    expect(contactError('410 555 0100')).toBeNull();
  });

  it('want a code of exactly 6 characters', () => {
    expect(codeError('12345')).toBe('otp_validate_error');
    expect(codeError('1234567')).toBe('otp_validate_error');
    expect(codeError('123456')).toBeNull();
  });

  it('add the chosen country prefix to a local phone number', () => {
    expect(normaliseContact('(410) 555-0100', '+1')).toBe('+14105550100');
    expect(normaliseContact('+44 20 7946 0000', '+1')).toBe('+442079460000');
    expect(normaliseContact(' Rider1@Demo.Wayfare ')).toBe('rider1@demo.wayfare');
  });
});

describe('the login form', () => {
  it('shows the message for an empty contact, a bad e-mail and a short phone number', async () => {
    const { user } = setup();
    mockApi({});
    await user.click(screen.getByTestId('login-request'));
    expect(await screen.findByText('Please enter your e-mail or mobile number.')).toBeInTheDocument();
    await user.type(screen.getByTestId('login-contact'), 'rider@nowhere');
    await user.click(screen.getByTestId('login-request'));
    expect(await screen.findByText('Please enter a valid e-mail address.')).toBeInTheDocument();
    await user.clear(screen.getByTestId('login-contact'));
    await user.type(screen.getByTestId('login-contact'), '555 01');
    await user.click(screen.getByTestId('login-request'));
    expect(await screen.findByText('Please enter a valid mobile number.')).toBeInTheDocument();
  });

  it('asks for a country when country selection is allowed and none is chosen', async () => {
    const { user } = setup({ AllowCountrySelection: true, country: '' });
    mockApi({});
    await user.type(screen.getByTestId('login-contact'), '4105550100');
    await user.click(screen.getByTestId('login-request'));
    expect(await screen.findByText('Please choose a country.')).toBeInTheDocument();
  });

  it('locks the contact once the code field shows, checks the code length, and cancel starts again', async () => {
    const { user } = setup();
    const api = mockApi({ 'POST /api/v1/auth/otp/request': () => ({ channel: 'email', expiresAt: 0 }) });
    await user.type(screen.getByTestId('login-contact'), 'rider1@demo.wayfare');
    await user.click(screen.getByTestId('login-request'));
    expect(await screen.findByTestId('login-code')).toBeInTheDocument();
    expect(api.calls[0]).toMatchObject({ path: '/api/v1/auth/otp/request', body: { contact: 'rider1@demo.wayfare' } });
    expect(screen.getByTestId('login-contact')).toBeDisabled();
    await user.type(screen.getByTestId('login-code'), '1234');
    await user.click(screen.getByTestId('login-verify'));
    expect(await screen.findByText('The code must have 6 digits.')).toBeInTheDocument();
    await user.click(screen.getByTestId('login-cancel'));
    expect(screen.queryByTestId('login-code')).not.toBeInTheDocument();
    expect(screen.getByTestId('login-contact')).toBeEnabled();
    expect(screen.getByTestId('login-contact')).toHaveValue('');
  });

  it("shows the server's refusal in the user's language and signs in with the right code", async () => {
    const { user, onSignedIn, client } = setup();
    const driver = testUser({ usertype: 'driver' });
    mockApi({
      'POST /api/v1/auth/otp/request': () => ({ channel: 'email', expiresAt: 0 }),
      'POST /api/v1/auth/otp/verify': ({ body }) =>
        (body as { code: string }).code === '654321' ? { token: 't', user: driver } : apiError(400, 'invalid_code'),
    });
    await user.type(screen.getByTestId('login-contact'), 'driver1@demo.wayfare');
    await user.click(screen.getByTestId('login-request'));
    await user.type(await screen.findByTestId('login-code'), '123456');
    await user.click(screen.getByTestId('login-verify'));
    expect(await screen.findByTestId('login-error')).toHaveTextContent('The code is not correct.');
    await user.clear(screen.getByTestId('login-code'));
    await user.type(screen.getByTestId('login-code'), '654321');
    await user.click(screen.getByTestId('login-verify'));
    await vi.waitFor(() => expect(onSignedIn).toHaveBeenCalledWith(driver));
    expect(client.getQueryData(['auth', 'me'])).toEqual(driver);
  });

  it('checks a referral code before signing in with it, and refuses one nobody has', async () => {
    const { user, onSignedIn } = setup();
    const rider = testUser();
    const api = mockApi({
      'POST /api/v1/auth/otp/request': () => ({ channel: 'email', expiresAt: 0 }),
      'POST /api/v1/auth/referral': ({ body }) =>
        (body as { referralId: string }).referralId === 'QWERT' ? { valid: true, referralId: 'QWERT' } : apiError(404, 'referral_invalid'),
      'POST /api/v1/auth/otp/verify': () => ({ token: 't', user: rider }),
    });
    await user.type(screen.getByTestId('login-contact'), 'friend@example.com');
    await user.click(screen.getByTestId('login-request'));
    await user.type(await screen.findByTestId('login-code'), '123456');
    await user.click(screen.getByTestId('login-referral-open'));
    await user.type(screen.getByTestId('login-referral'), 'zzzzz');
    await user.click(screen.getByTestId('login-verify'));
    expect(await screen.findByText('No one has this referral code. Check it, or leave it empty.')).toBeInTheDocument();
    expect(api.calls.some((call) => call.path === '/api/v1/auth/otp/verify')).toBe(false);
    await user.clear(screen.getByTestId('login-referral'));
    await user.type(screen.getByTestId('login-referral'), 'qwert');
    await user.click(screen.getByTestId('login-verify'));
    await vi.waitFor(() => expect(onSignedIn).toHaveBeenCalledWith(rider));
    const verify = api.calls.find((call) => call.path === '/api/v1/auth/otp/verify');
    expect(verify?.body).toMatchObject({ contact: 'friend@example.com', code: '123456', referralId: 'QWERT' });
  });

  it('shows one social button per provider the server offers, each starting its sign-in back to this page', async () => {
    mockApi({ 'GET /api/v1/auth/oauth/providers': () => ({ providers: ['google', 'facebook'] }) });
    renderWithProviders(<LoginForm onSignedIn={vi.fn()} />, { client: seededClient(null), path: '/login?next=1&error=login_error' });
    const google = await screen.findByTestId('login-social-google');
    expect(google).toHaveTextContent('Continue with Google');
    expect(google).toHaveAttribute('href', '/api/v1/auth/oauth/google/start?return=%2Flogin%3Fnext%3D1');
    expect(screen.getByTestId('login-social-facebook')).toHaveTextContent('Continue with Facebook');
    expect(screen.queryByTestId('login-social-apple')).not.toBeInTheDocument();
  });

  it('shows no social button when the server offers none', async () => {
    const api = mockApi({ 'GET /api/v1/auth/oauth/providers': () => ({ providers: [] }) });
    setup({ FacebookLoginEnabled: true });
    await vi.waitFor(() => expect(api.calls.some((call) => call.path === '/api/v1/auth/oauth/providers')).toBe(true));
    expect(screen.queryByText('or')).not.toBeInTheDocument();
    expect(screen.queryByTestId('login-social-facebook')).not.toBeInTheDocument();
  });

  it('marks the browser as signing in when a social button is pressed', async () => {
    mockApi({ 'GET /api/v1/auth/oauth/providers': () => ({ providers: ['apple'] }) });
    window.localStorage.removeItem('wayfare.signedIn');
    const { user } = setup();
    const apple = await screen.findByTestId('login-social-apple');
    // jsdom does not navigate; the marker is what the app reads when it comes back.
    apple.addEventListener('click', (event) => event.preventDefault());
    await user.click(apple);
    expect(window.localStorage.getItem('wayfare.signedIn')).toBe('1');
  });

  it("shows the translated message of a refused social sign-in's error", () => {
    mockApi({});
    renderWithProviders(<LoginForm onSignedIn={vi.fn()} />, { client: seededClient(null), path: '/login?error=require_approval' });
    expect(screen.getByTestId('login-error')).toHaveTextContent('Your account is waiting for approval by an administrator.');
  });

  it('shows the general sign-in failure for an error key it does not know', () => {
    mockApi({});
    renderWithProviders(<LoginForm onSignedIn={vi.fn()} />, { client: seededClient(null), path: '/login?error=%3Cscript%3E' });
    expect(screen.getByTestId('login-error')).toHaveTextContent('Sign-in failed. Please try again.');
  });
});
