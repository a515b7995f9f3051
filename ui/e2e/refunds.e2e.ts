// Issue #37: a refund from the booking page. A new rider rides with
// driver14 and pays by card through the demo's `test` gateway (over the
// API: the payment's own browser test is money.e2e.ts). The admin opens the
// booking's page, where the refund dialog offers the card (the gateway took
// the payment) or the rider's wallet; the admin refunds part to the wallet,
// sees the refund listed and the rider's wallet balance change in the
// rider's own browser, then sends another part back to the card, and debits
// the wallet with a reason on Add to wallet. The grid's row action opens the
// same refund dialog. Screenshots for docs/screenshots: the dialog, the page
// and Add to wallet on a desktop in English, and on a phone in Arabic.
//
// driver14 goes online about 13 km from the pickup, past the dispatch
// radius, so the system's own offers never reach it; the admin assigns it.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { baseUrl, docsScreenshot, launchBrowser, newPerson, signIn, type Person } from './support/browser';
import { expectNoErrors, expectRefused, waitForAttribute } from './support/flows';

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const LIVE = { timeoutMs: 20_000 };
const POLL = { timeout: 20_000 };
const stamp = Date.now().toString(36).toLowerCase();
const RIDER = `refund.rider.${stamp}@example.com`;

const PICKUP = { lat: 39.2825, lng: -76.5927, add: 'Fells Point, Baltimore' };
const DROP = { lat: 39.2905, lng: -76.5794, add: 'Patterson Park, Baltimore' };
const FAR_AWAY = { lat: 39.4, lng: -76.6 };

interface BookingJson {
  id: string;
  reference: string;
  status: string;
  otp: number | false | null;
  payableAmount: number;
  customer: string;
  gateway?: string | null;
}

const money = (amount: number) => `$${amount.toFixed(2)}`;
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Pays a PENDING booking through the test gateway's page, as its Pay button does. */
async function payByTestGateway(token: string, booking: BookingJson, rider: { id: string; email: string }) {
  const form = new URLSearchParams({
    order_id: booking.id,
    amount: String(booking.payableAmount),
    currency: 'USD',
    product_name: 'Wayfare',
    first_name: 'Rhea',
    last_name: 'Refund',
    quantity: '1',
    cust_id: rider.id,
    mobile_no: '',
    email: rider.email,
  });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' };
  const checkout = await fetch(`${baseUrl()}/api/v1/payments/test/checkout`, { method: 'POST', headers, body: form, redirect: 'manual' });
  expect(checkout.status, await checkout.clone().text()).toBe(303);
  const page = checkout.headers.get('location') ?? '';
  expect(page).toMatch(/\/api\/v1\/payments\/test\/pay\//);
  const paid = await fetch(new URL(page, baseUrl()), { method: 'POST', headers, body: 'action=pay', redirect: 'manual' });
  expect(paid.status, await paid.clone().text()).toBe(303);
}

async function dismissToasts(page: Page) {
  const toasts = page.getByTestId('notification');
  while ((await toasts.count()) > 0) {
    await toasts.last().getByRole('button').click();
    await page.waitForTimeout(300);
  }
}

describe('a refund from the booking page', () => {
  let browser: Browser;
  let admin: Person;
  let rider: Person;
  let adminToken = '';
  let driverToken = '';
  let paid: BookingJson;

  beforeAll(async () => {
    adminToken = await apiSignIn('admin@demo.wayfare');
    const settings = (await call('GET', '/settings', null)) as { autoDispatch: boolean };
    if (!settings.autoDispatch) await call('PATCH', '/settings', adminToken, { autoDispatch: true });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    if (driverToken) await call('POST', '/drivers/me/status', driverToken, { driverActiveStatus: false }).catch(() => undefined);
    if (adminToken && paid) await call('POST', `/bookings/${paid.id}/complete`, adminToken, {}).catch(() => undefined);
    await browser?.close();
  });

  it('a new rider rides with driver14 and pays by card through the test gateway', async () => {
    const riderToken = await apiSignIn(RIDER);
    await call('PATCH', '/users/me', riderToken, { firstName: 'Rhea', lastName: 'Refund' });
    const me = (await call('GET', '/auth/me', riderToken)) as { user: { id: string } };
    driverToken = await apiSignIn('driver14@demo.wayfare');
    const driver = (await call('GET', '/auth/me', driverToken)) as { user: { id: string; carType: string | null } };
    await call('POST', '/drivers/me/status', driverToken, { driverActiveStatus: true, location: FAR_AWAY });
    const booked = (await call('POST', '/bookings', riderToken, { pickup: PICKUP, drop: DROP, carType: driver.user.carType, bookLater: false, payment_mode: 'cash' })) as BookingJson;
    await call('POST', `/bookings/${booked.id}/assign`, adminToken, { driver: driver.user.id });
    // Driven for real: near the pickup before accepting, then to the booked drop, where the trip ends.
    await call('POST', '/drivers/me/location', driverToken, { lat: PICKUP.lat, lng: PICKUP.lng });
    await call('POST', `/bookings/${booked.id}/accept`, driverToken, {});
    await call('POST', `/bookings/${booked.id}/arrive`, driverToken, {});
    await call('POST', `/bookings/${booked.id}/start`, driverToken, booked.otp ? { otp: booked.otp } : {});
    await pause(1100);
    await call('POST', '/drivers/me/location', driverToken, { lat: DROP.lat, lng: DROP.lng });
    await call('POST', `/bookings/${booked.id}/reach`, driverToken, {});
    const pending = (await call('POST', `/bookings/${booked.id}/pay`, riderToken, { payment_mode: 'card' })) as BookingJson;
    expect(pending.status).toBe('PENDING');
    await payByTestGateway(riderToken, pending, { id: me.user.id, email: RIDER });
    paid = (await call('GET', `/bookings/${booked.id}`, adminToken)) as BookingJson;
    expect([paid.status, paid.gateway]).toEqual(['PAID', 'test']);
    expect(paid.payableAmount).toBeGreaterThan(5);
    await call('POST', '/drivers/me/status', driverToken, { driverActiveStatus: false });

    // The rider watches their wallet in their own browser: nothing in it yet.
    rider = await newPerson(browser, 'refund-rider', { viewport: DESKTOP });
    await signIn(rider, RIDER);
    await rider.page.goto('/bookings');
    await expect.poll(() => rider.page.getByTestId('wallet-balance').textContent(), POLL).toBe('$0.00');
  });

  it('the admin refunds part to the wallet from the booking page; the refund is listed and the rider’s balance changes at once', async () => {
    admin = await newPerson(browser, 'refund-admin', { viewport: DESKTOP });
    await signIn(admin, 'admin@demo.wayfare');
    const { page } = admin;
    await page.goto(`/bookings/${paid.id}/manage`);
    await waitForAttribute(page, 'booking-page', 'data-status', 'PAID');
    await page.getByTestId('refunds-empty').waitFor();
    // The trip ended where it was booked to.
    expect(await page.getByTestId('booking-ended-at').count()).toBe(0);
    await page.getByTestId('booking-action-refund').click();
    const dialog = page.getByTestId('refund-dialog');
    await dialog.waitFor();
    // The test gateway took the card payment: it can take the money back, and is offered first.
    await expect.poll(() => dialog.getByTestId('refund-gateway-note').textContent(), POLL).toBe(`Up to ${money(paid.payableAmount)} can go back through the payment gateway.`);
    expect(await dialog.getByTestId('refund-destination-gateway').isChecked()).toBe(true);
    await dialog.getByTestId('refund-destination-wallet').check();
    await dialog.getByTestId('refund-part').check();
    await dialog.getByTestId('refund-amount').fill('3');
    await dialog.getByTestId('refund-reason').fill('The driver took a long detour');
    await docsScreenshot(page, 'refund-dialog');
    await dialog.getByTestId('refund-submit').click();
    const confirmDialog = page.getByTestId('confirm-dialog');
    expect(await confirmDialog.getByTestId('confirm-message').textContent()).toBe(`$3.00 goes to Rhea Refund's wallet from booking ${paid.reference}.`);
    await confirmDialog.getByTestId('confirm-ok').click();
    await dialog.waitFor({ state: 'detached' });

    const row = page.getByTestId('refund-row');
    await row.first().waitFor(POLL);
    expect(await row.first().getAttribute('data-destination')).toBe('wallet');
    expect(await row.first().getAttribute('data-status')).toBe('done');
    expect(await row.first().textContent()).toContain('The driver took a long detour');
    await expect.poll(() => page.getByTestId('fare-refunded-amount').textContent(), POLL).toBe('$3.00');
    expect(await page.getByTestId('refunds-totals').textContent()).toBe(`Paid ${money(paid.payableAmount)} · refunded $3.00 · left ${money(paid.payableAmount - 3)}`);
    await expect.poll(() => page.getByTestId('ledger-entry').evaluateAll((rows) => rows.map((entry) => entry.getAttribute('data-kind'))), POLL).toContain('Refund');

    // The rider's page: the socket's wallet event, no reload.
    await expect.poll(() => rider.page.getByTestId('wallet-balance').textContent(), POLL).toBe('$3.00');
    const entry = rider.page.getByTestId('wallet-entry').first();
    await expect.poll(() => entry.textContent(), POLL).toContain(`Refund · ${paid.reference}`);
    expect(await entry.textContent()).toContain('The driver took a long detour');
    const wallet = (await call('GET', `/users/${paid.customer}/wallet`, adminToken)) as { walletBalance: number };
    expect(wallet.walletBalance).toBe(3);
  });

  it('sends another part back to the card through the gateway; the wallet stays as it was', async () => {
    const { page } = admin;
    await dismissToasts(page);
    await page.getByTestId('booking-action-refund').click();
    const dialog = page.getByTestId('refund-dialog');
    await dialog.waitFor();
    await expect.poll(() => dialog.getByTestId('refund-destination-gateway').isChecked(), POLL).toBe(true);
    // The earlier refund is in the dialog too.
    expect(await dialog.getByTestId('refund-row').count()).toBe(1);
    await dialog.getByTestId('refund-part').check();
    await dialog.getByTestId('refund-amount').fill('2');
    await dialog.getByTestId('refund-reason').fill('Charged for a wait that did not happen');
    await dialog.getByTestId('refund-submit').click();
    expect(await page.getByTestId('confirm-message').textContent()).toBe(`$2.00 goes back to Rhea Refund's card through test, from booking ${paid.reference}.`);
    await page.getByTestId('confirm-ok').click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('refund-row').evaluateAll((rows) => rows.map((row) => `${row.getAttribute('data-destination')}:${row.getAttribute('data-amount')}`)), POLL).toEqual([
      'wallet:3',
      'gateway:2',
    ]);
    expect(await page.getByTestId('refund-row').nth(1).textContent()).toContain('Back to the card (test)');
    await expect.poll(() => page.getByTestId('fare-refunded-amount').textContent(), POLL).toBe('$5.00');
    await dismissToasts(page);
    await page.getByTestId('booking-refunds').scrollIntoViewIfNeeded();
    await docsScreenshot(page, 'refund-booking-page');
    expect(await rider.page.getByTestId('wallet-balance').textContent()).toBe('$3.00');
  });

  it('the admin debits the rider’s wallet with a reason on Add to wallet; the rider reads it in their history', async () => {
    const { page } = admin;
    await page.getByTestId('panel-menu-addtowallet').click();
    await page.waitForURL(/\/addtowallet$/);
    await page.getByTestId('wallet-kind-debit').click();
    await page.getByTestId('wallet-user-input').fill(RIDER);
    await page.getByTestId('wallet-user-option').first().click();
    await expect.poll(() => page.getByTestId('wallet-current-balance').textContent(), POLL).toBe('Current balance: $3.00');
    await page.getByTestId('wallet-amount').fill('1');
    await page.getByTestId('wallet-submit').click();
    // No reason, nothing sent.
    expect(await page.getByTestId('add-to-wallet').textContent()).toContain('Say why the wallet changes.');
    await page.getByTestId('wallet-reason').fill('Refunded twice by mistake');
    await page.getByTestId('wallet-submit').click();
    expect(await page.getByTestId('confirm-message').textContent()).toBe("$1.00 is taken out of Rhea Refund's wallet (now $3.00).");
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => page.getByTestId('wallet-credited').textContent(), POLL).toBe("Rhea Refund's wallet was debited. New balance: $2.00");
    await docsScreenshot(page, 'addtowallet-debit');
    // More than the wallet holds: the server's refusal, in words.
    await page.getByTestId('wallet-amount').fill('50');
    await page.getByTestId('wallet-reason').fill('Too much');
    await page.getByTestId('wallet-submit').click();
    await page.getByTestId('confirm-ok').click();
    const refusal = page.getByTestId('server-error');
    await refusal.waitFor(POLL);
    expect(await refusal.getAttribute('data-code')).toBe('insufficient_wallet_balance');
    expect(await refusal.textContent()).toBe('Your wallet balance is too low.');
    expectRefused(admin, 409, '/wallet/debit');

    await expect.poll(() => rider.page.getByTestId('wallet-balance').textContent(), POLL).toBe('$2.00');
    const entry = rider.page.getByTestId('wallet-entry').first();
    await expect.poll(() => entry.textContent(), POLL).toContain('Debit by admin');
    expect(await entry.textContent()).toContain('Refunded twice by mistake');
    expectNoErrors(admin, rider);
    await rider.context.close();
  });

  it('offers the same dialog from the bookings grid’s row action', async () => {
    const { page } = admin;
    await page.goto('/bookings');
    await page.getByTestId('bookings-grid-search').fill(paid.reference);
    const row = page.locator('[data-testid="bookings-grid"] [role="row"]', { hasText: paid.reference }).first();
    await row.waitFor({ timeout: 15_000 });
    await row.getByTestId('action-refund').click();
    const dialog = page.getByTestId('refund-dialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading', { level: 2 }).textContent()).toBe(`Refund booking ${paid.reference}`);
    await expect.poll(() => dialog.getByTestId('refund-left').textContent(), POLL).toContain(money(paid.payableAmount - 5));
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    // The grid stays where it was: the action did not open the booking.
    expect(new URL(page.url()).pathname).toBe('/bookings');
    expectNoErrors(admin);
    await admin.context.close();
  });

  it('fits a phone and speaks Arabic right to left', async () => {
    const arabic = await newPerson(browser, 'refund-admin-ar', { viewport: PHONE, locale: 'ar' });
    await signIn(arabic, 'admin@demo.wayfare');
    const { page } = arabic;
    await page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await page.goto(`/bookings/${paid.id}/manage`);
    await waitForAttribute(page, 'booking-page', 'data-status', 'PAID', LIVE);
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await page.getByTestId('refund-row').nth(1).waitFor(POLL);
    await page.getByTestId('booking-refunds').scrollIntoViewIfNeeded();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(1);
    await docsScreenshot(page, 'refund-booking-page-phone-ar');
    await page.getByTestId('booking-action-refund').click();
    const dialog = page.getByTestId('refund-dialog');
    await dialog.waitFor();
    await expect.poll(() => dialog.getByTestId('refund-destination-gateway').isChecked(), POLL).toBe(true);
    await dialog.getByTestId('refund-part').check();
    await dialog.getByTestId('refund-amount').fill('1');
    await dialog.getByTestId('refund-reason').fill('تأخر السائق');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(1);
    await docsScreenshot(page, 'refund-dialog-phone-ar');
    await dialog.getByTestId('refund-reason').press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // The wallet tools: an adjustment, saying first what the difference is.
    await page.goto('/addtowallet');
    await page.getByTestId('wallet-kind-adjust').click();
    await page.getByTestId('wallet-user-input').fill(RIDER);
    await page.getByTestId('wallet-user-option').first().click();
    await page.getByTestId('wallet-current-balance').waitFor();
    await page.getByTestId('wallet-amount').fill('5');
    await page.getByTestId('wallet-reason').fill('تصحيح الرصيد');
    expect(await page.getByTestId('add-to-wallet').textContent()).toContain('إضافة');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(1);
    await docsScreenshot(page, 'addtowallet-adjust-phone-ar');
    expectNoErrors(arabic);
    await arabic.context.close();
  });
});
