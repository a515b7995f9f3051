// Money, end to end through the demo's `test` gateway (docs/api.md
// "Payments"): a new rider pays a trip by card (declined once, then paid),
// tops the wallet up (given up once, then paid), pays the next trip from the
// wallet; the driver sees each share arrive, asks for a withdraw (too much
// first), and sees the rider cancel with a reason, once while only offered
// the booking and once after accepting it.
// The five demo riders belong to the other files, so this rider signs up
// here; the trips are Comfort, which only driver2 of the drivers online in
// the suite drives (the other files book Economy and XL).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors, fillBookingForm, rateFiveStars, waitForAttribute } from './support/flows';

const RIDER = 'mia.money@example.com';
const DRIVER = 'driver2@demo.wayfare';
const TRIP = { pickup: ['Fells', 'Fells Point'], drop: ['Patterson', 'Patterson Park'], carType: 'Comfort' } as const;
const GATEWAY_PAGE = /\/api\/v1\/payments\/test\/pay\/[0-9a-f-]+$/;
const LIVE = { timeoutMs: 15_000 };
const LIVE_WAIT = { timeout: LIVE.timeoutMs };

/** "$12.30" → 12.3 */
function dollars(text: string | null) {
  const match = /^(-?)\$(\d+\.\d{2})$/.exec(text ?? '');
  if (!match) throw new Error(`not an amount: ${text}`);
  return Number(match[1] + match[2]);
}

function money(amount: number) {
  return `${amount < 0 ? '-' : ''}$${Math.abs(amount).toFixed(2)}`;
}

async function balanceOf(page: Page) {
  return dollars(await page.getByTestId('wallet-balance').textContent());
}

async function waitForBalance(page: Page, amount: number) {
  await page.waitForFunction(
    (text) => document.querySelector('[data-testid="wallet-balance"]')?.textContent === text,
    money(amount),
    LIVE_WAIT,
  );
}

describe('money: card, top-up, wallet, withdraw and cancel', () => {
  let browser: Browser;
  let rider: Person;
  let driver: Person;
  /** The driver's share of each paid trip, in order. */
  const shares: number[] = [];

  /** The rider books the Comfort trip; resolves with the booking's id once the trip view shows it. */
  async function book() {
    const page = rider.page;
    await page.goto('/');
    await fillBookingForm(page, { pickup: [...TRIP.pickup], drop: [...TRIP.drop], carType: TRIP.carType });
    await page.getByTestId('book-button').click();
    await page.getByTestId('confirm-booking').click();
    await page.getByTestId('go-to-booking').click();
    await page.waitForURL(/\/bookings\?trip=/);
    const id = new URL(page.url()).searchParams.get('trip') ?? '';
    await waitForAttribute(page, 'trip-view', 'data-booking-id', id);
    await waitForAttribute(page, 'trip-view', 'data-status', 'NEW');
    return id;
  }

  /** The driver takes the offer and drives the trip to the drop. */
  async function driveToTheDrop(bookingId: string) {
    const otp = (await rider.page.getByTestId('trip-otp').textContent()) ?? '';
    const page = driver.page;
    await waitForAttribute(page, 'offer-card', 'data-booking-id', bookingId, LIVE);
    await page.getByTestId('offer-accept').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'ACCEPTED');
    await page.getByTestId('trip-arrive').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'ARRIVED');
    await page.getByTestId('trip-otp-input').fill(otp);
    await page.getByTestId('trip-start').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'STARTED');
    await page.getByTestId('trip-reach').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'REACHED');
    await waitForAttribute(rider.page, 'trip-view', 'data-status', 'REACHED', LIVE);
  }

  /** The driver's newest wallet entry is their share of the trip `reference`, and the balance moved by it. */
  async function expectShare(reference: string, before: number) {
    const page = driver.page;
    const entry = page.getByTestId('wallet-entry').first();
    await page.waitForFunction(
      (text) => document.querySelector('[data-testid="wallet-entry"]')?.textContent?.includes(text) ?? false,
      `Trip earnings · ${reference}`,
      LIVE_WAIT,
    );
    expect(await entry.getAttribute('data-type')).toBe('Credit');
    const share = dollars(((await entry.textContent()) ?? '').replace(/^.*\+/, ''));
    expect(share).toBeGreaterThan(0);
    await waitForBalance(page, Math.round((before + share) * 100) / 100);
    shares.push(share);
  }

  /** Through the test gateway's page: "Pay" or "Fail", then back in the app. */
  async function onTheGateway(page: Page, button: 'pay' | 'fail', expected: { what: string; amount: string }) {
    await page.waitForURL(GATEWAY_PAGE);
    expect(await page.title()).toBe('Test payment');
    expect(await page.locator('body').textContent()).toContain(expected.what);
    expect(await page.locator('#amount').textContent()).toBe(expected.amount);
    await screenshot(page, `money-gateway-${expected.what.startsWith('Booking') ? 'trip' : 'top-up'}-${button}`);
    await page.locator(`#${button}`).click();
    await page.waitForURL((url) => url.pathname === '/bookings');
  }

  beforeAll(async () => {
    browser = await launchBrowser();
    rider = await newPerson(browser, 'rider');
    driver = await newPerson(browser, 'driver');
  });

  afterAll(async () => {
    await browser?.close();
    // Offline again, so a later file's Comfort booking is not offered to a
    // driver nobody is at: the default policy, `batch`, offers a booking to
    // one driver, the nearest free one.
    await call('POST', '/drivers/me/status', await apiSignIn(DRIVER), { driverActiveStatus: false });
  });

  it('a new rider signs up through the dev outbox and completes the profile', async () => {
    await signIn(rider, RIDER);
    const page = rider.page;
    await page.goto('/profile');
    await page.getByTestId('profile-first-name').fill('Mia');
    await page.getByTestId('profile-last-name').fill('Money');
    await page.getByTestId('profile-submit').click();
    expect(await page.getByTestId('profile-message').textContent()).toBe('Your profile was updated.');
    await page.goto('/bookings');
    expect(await page.getByTestId('wallet-balance').textContent()).toBe('$0.00');
  });

  it('the driver goes online with an empty withdraw list', async () => {
    await signIn(driver, DRIVER);
    const page = driver.page;
    await page.getByTestId('share-simulate').click();
    await page.getByTestId('driver-online-toggle').click();
    await waitForAttribute(page, 'driver-console', 'data-online', 'true');
    await waitForAttribute(page, 'socket-status', 'data-state', 'connected', LIVE);
    expect(await page.getByTestId('withdraws-empty').textContent()).toBe('No withdrawal requests yet.');
  });

  it('pays a trip by card: the gateway declines once and the trip stays unpaid, then it pays', async () => {
    const driverBefore = await balanceOf(driver.page);
    const bookingId = await book();
    await driveToTheDrop(bookingId);
    const page = rider.page;
    const fare = (await page.getByTestId('trip-fare').textContent()) ?? '';
    expect(fare).toMatch(/^\$\d+\.\d{2}$/);
    await screenshot(page, 'money-01-rider-trip-reached');

    // Choosing card makes the trip PENDING and frees the driver (spec §4).
    await page.getByTestId('pay-now').click();
    await page.getByTestId('payment-dialog').waitFor();
    await waitForAttribute(page, 'trip-view', 'data-status', 'PENDING');
    expect(await page.getByTestId('payment-dialog').textContent()).toContain(`Amount due: ${fare}`);
    await screenshot(page, 'money-02-provider-chooser');
    await waitForAttribute(driver.page, 'driver-trip', 'data-status', 'PENDING', LIVE);
    expect(await driver.page.getByTestId('driver-awaiting-card').textContent()).toBe('The rider chose to pay by card in the app.');
    await driver.page.getByTestId('no-offers').waitFor();

    // The gateway declines: back on the trip, still unpaid, told so.
    await page.getByTestId('provider-test').click();
    await onTheGateway(page, 'fail', { what: `Booking ${bookingId}`, amount: fare });
    expect(new URL(page.url()).searchParams.get('payment')).toBe('cancelled');
    await waitForAttribute(page, 'payment-outcome', 'data-outcome', 'cancelled');
    expect(await page.getByTestId('payment-outcome').textContent()).toBe('The payment was not completed. This booking is still unpaid.');
    expect(await page.getByTestId('trip-view').getAttribute('data-status')).toBe('PENDING');
    await screenshot(page, 'money-03-card-declined');

    // Pay now again, straight to the chooser; this time the gateway pays.
    await page.getByTestId('pay-now').click();
    await page.getByTestId('provider-test').click();
    await onTheGateway(page, 'pay', { what: `Booking ${bookingId}`, amount: fare });
    expect(new URL(page.url()).searchParams.get('trip')).toBe(bookingId);
    await waitForAttribute(page, 'trip-view', 'data-status', 'PAID');
    expect(await page.getByTestId('payment-outcome').textContent()).toBe('Thank you! Your payment was received.');
    expect(await page.getByTestId('trip-view').textContent()).toContain('Paid by Card');
    expect(await page.getByTestId('trip-fare').textContent()).toBe(fare);
    await screenshot(page, 'money-04-paid-by-card');

    // The driver sees it paid and the share in the wallet; the rider rates.
    await waitForAttribute(driver.page, 'driver-trip', 'data-status', 'PAID', LIVE);
    const reference = (await page.getByTestId('trip-view').getAttribute('data-reference')) ?? '';
    await expectShare(reference, driverBefore);
    await rateFiveStars(page);
    await page.getByTestId('rate-submit').click();
    await waitForAttribute(page, 'trip-view', 'data-status', 'COMPLETE');
    // A paid card trip takes nothing from the rider's wallet.
    expect(await page.getByTestId('wallet-balance').textContent()).toBe('$0.00');
  });

  it('tops the wallet up through the gateway: given up once, then paid, with the new balance and a history row', async () => {
    const page = rider.page;
    await page.goto('/bookings');
    await page.getByTestId('topup-open').click();
    await page.getByTestId('topup-amount').fill('forty');
    await page.getByTestId('topup-continue').click();
    expect(await page.getByTestId('topup-amount-help').textContent()).toBe('Please enter a valid amount.');
    await page.getByTestId('topup-amount').fill('0');
    await page.getByTestId('topup-continue').click();
    expect(await page.getByTestId('topup-amount-help').textContent()).toBe('Please enter a valid amount.');
    await page.getByTestId('topup-amount').fill('40');
    await screenshot(page, 'money-05-top-up-amount');
    await page.getByTestId('topup-continue').click();
    expect(await page.getByTestId('payment-dialog').textContent()).toContain('Amount due: $40.00');

    // Given up on the gateway's page: nothing changes.
    await page.getByTestId('provider-test').click();
    await onTheGateway(page, 'fail', { what: 'Wallet top-up', amount: '$40.00' });
    await waitForAttribute(page, 'topup-outcome', 'data-outcome', 'cancelled');
    expect(await page.getByTestId('topup-outcome').textContent()).toBe('The top-up was not completed; your balance has not changed.');
    expect(await page.getByTestId('wallet-balance').textContent()).toBe('$0.00');

    // Paid: the balance and a history row.
    await page.getByTestId('topup-open').click();
    await page.getByTestId('topup-amount').fill('40');
    await page.getByTestId('topup-continue').click();
    await page.getByTestId('provider-test').click();
    await onTheGateway(page, 'pay', { what: 'Wallet top-up', amount: '$40.00' });
    await waitForAttribute(page, 'topup-outcome', 'data-outcome', 'paid');
    expect(await page.getByTestId('topup-outcome').textContent()).toBe('Your top-up was paid. Thank you!');
    await waitForBalance(page, 40);
    const entry = page.getByTestId('wallet-entry').first();
    expect(await entry.getAttribute('data-type')).toBe('Credit');
    expect(await entry.textContent()).toMatch(/^Wallet top-up.*\+\$40\.00$/);
    // The given-up top-up left no row.
    expect(await page.getByTestId('wallet-entry').count()).toBe(1);
    await screenshot(page, 'money-06-topped-up');
  });

  it('pays the next trip from the wallet: the rider\'s balance falls by the fare and the driver gets the share', async () => {
    const driverBefore = await balanceOf(driver.page);
    const bookingId = await book();
    await driveToTheDrop(bookingId);
    const page = rider.page;
    const fare = dollars(await page.getByTestId('trip-fare').textContent());
    expect(await page.getByTestId('pay-wallet').textContent()).toBe('Pay from wallet ($40.00)');
    await page.getByTestId('pay-wallet').click();
    await waitForAttribute(page, 'trip-view', 'data-status', 'PAID');
    expect(await page.getByTestId('trip-view').textContent()).toContain('Paid by Wallet');
    const reference = (await page.getByTestId('trip-view').getAttribute('data-reference')) ?? '';
    await waitForBalance(page, Math.round((40 - fare) * 100) / 100);
    await page.waitForFunction(
      (text) => document.querySelector('[data-testid="wallet-entry"]')?.textContent?.startsWith(text) ?? false,
      `Trip payment · ${reference}`,
      LIVE_WAIT,
    );
    expect(await page.getByTestId('wallet-entry').first().textContent()).toContain(`−${money(fare)}`);
    await screenshot(page, 'money-07-paid-from-wallet');

    await waitForAttribute(driver.page, 'driver-trip', 'data-status', 'PAID', LIVE);
    await expectShare(reference, driverBefore);
    await screenshot(driver.page, 'money-08-driver-share');
    await rateFiveStars(page);
    await page.getByTestId('rate-submit').click();
    await waitForAttribute(page, 'trip-view', 'data-status', 'COMPLETE');
  });

  it('the driver asks for a withdraw: a bad amount and too much are refused in words, then it is listed and the balance falls', async () => {
    const page = driver.page;
    const before = await balanceOf(page);
    expect(before).toBeCloseTo(shares[0] + shares[1], 2);
    await page.getByTestId('withdraw-open').click();
    await page.getByTestId('withdraw-amount').fill('0');
    await page.getByTestId('withdraw-submit').click();
    expect(await page.getByTestId('withdraw-error').textContent()).toBe('Please enter a valid amount.');
    await page.getByTestId('withdraw-amount').fill(String(Math.ceil(before) + 100));
    await page.getByTestId('withdraw-submit').click();
    await page.getByTestId('withdraw-error').filter({ hasText: 'Your wallet balance is too low.' }).waitFor();
    await screenshot(page, 'money-09-withdraw-too-much');
    expect(await balanceOf(page)).toBe(before);

    await page.getByTestId('withdraw-amount').fill('5');
    await page.getByTestId('withdraw-submit').click();
    await page.getByTestId('withdraw-sent').waitFor();
    await waitForBalance(page, Math.round((before - 5) * 100) / 100);
    const row = page.getByTestId('withdraw-row').first();
    await row.waitFor();
    expect(await page.getByTestId('withdraw-row').count()).toBe(1);
    expect(await row.getAttribute('data-processed')).toBe('false');
    expect(await row.textContent()).toMatch(/^\$5\.00.*Requested$/);
    await page.waitForFunction(() => document.querySelector('[data-testid="wallet-entry"]')?.getAttribute('data-type') === 'Withdraw', null, LIVE_WAIT);
    expect(await page.getByTestId('wallet-entry').first().textContent()).toMatch(/^Withdrawal.*−\$5\.00$/);
    await screenshot(page, 'money-10-withdraw-requested');
    // A reload shows the same: the request and the balance are the server's.
    await page.reload();
    await waitForBalance(page, Math.round((before - 5) * 100) / 100);
    expect(await page.getByTestId('withdraw-row').count()).toBe(1);
  });

  it('the rider cancels with a reason while the driver is only offered the booking; the offer goes away', async () => {
    const bookingId = await book();
    await waitForAttribute(driver.page, 'offer-card', 'data-booking-id', bookingId, LIVE);
    const page = rider.page;
    await page.getByTestId('cancel-booking').click();
    const dialog = page.getByTestId('cancel-dialog');
    // The server's cancellation reasons (the demo's list).
    for (const reason of ['Driver is taking too long', 'Changed my plans', 'Booked by mistake', 'Found another ride', 'Other']) {
      await dialog.getByLabel(reason, { exact: true }).waitFor();
    }
    expect(await page.getByTestId('cancel-confirm').isDisabled()).toBe(true);
    await dialog.getByLabel('Found another ride').check();
    await screenshot(page, 'money-11-cancel-reason');
    await page.getByTestId('cancel-confirm').click();
    await waitForAttribute(page, 'trip-view', 'data-status', 'CANCELLED');
    expect(await page.getByTestId('trip-view').textContent()).toContain('This booking was cancelled: Found another ride');
    await driver.page.getByTestId('offer-card').waitFor({ state: 'detached', timeout: LIVE.timeoutMs });
    await driver.page.getByText('The rider cancelled that request.').waitFor({ timeout: LIVE.timeoutMs });
    await driver.page.getByTestId('no-offers').waitFor();
    await screenshot(driver.page, 'money-12-driver-offer-cancelled');
  });

  it('the rider cancels with a reason after the driver accepted; the trip leaves the driver\'s screen', async () => {
    const bookingId = await book();
    await waitForAttribute(driver.page, 'offer-card', 'data-booking-id', bookingId, LIVE);
    await driver.page.getByTestId('offer-accept').click();
    await waitForAttribute(driver.page, 'driver-trip', 'data-booking-id', bookingId);
    await waitForAttribute(rider.page, 'trip-view', 'data-status', 'ACCEPTED', LIVE);
    const page = rider.page;
    await page.getByTestId('cancel-booking').click();
    await page.getByTestId('cancel-dialog').getByLabel('Driver is taking too long').check();
    await page.getByTestId('cancel-confirm').click();
    await waitForAttribute(page, 'trip-view', 'data-status', 'CANCELLED');
    expect(await page.getByTestId('trip-view').textContent()).toContain('This booking was cancelled: Driver is taking too long');
    await screenshot(page, 'money-13-rider-cancelled');
    await driver.page.getByTestId('driver-trip').waitFor({ state: 'detached', timeout: LIVE.timeoutMs });
    await driver.page.getByTestId('no-offers').waitFor();
    await driver.page.waitForSelector(`[data-testid="booking-row"][data-booking-id="${bookingId}"][data-status="CANCELLED"]`, LIVE_WAIT);
    await screenshot(driver.page, 'money-14-driver-trip-cancelled');
  });

  it('no errors reached either browser console, but the refused withdraw', () => {
    const refused = `status of 409 (Conflict) (${new URL('/api/v1/withdraws', driver.page.url()).href})`;
    expectNoErrors(rider, { ...driver, errors: driver.errors.filter((error) => !error.endsWith(refused)) });
  });
});
