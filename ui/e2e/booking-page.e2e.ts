// Issue #34: a booking's own page in the panel, and every booking visible
// and fixable from there. With automatic dispatch on (the default):
//
// 1. a new rider, rider41@demo.wayfare, books a car type nobody online
//    drives; the admin sees the row tinted "Unassigned" in the bookings
//    grid (and in its Unassigned filter), opens the booking's page and
//    assigns it to driver11, who accepts; the page shows ACCEPTED and its
//    dispatch timeline the admin's offer and the accept; the admin cancels
//    it from the page with a reason and the page shows CANCELLED;
// 2. a new rider, rider42@demo.wayfare, rides with driver12 to a spot some
//    400 m past the booked drop and says they will pay by card, and does not
//    (over the API): the trip is PENDING. The admin finds it under Money
//    owed, opens its page, which shows where the trip really ended beside the
//    booked drop, settles it in cash (PAID, the ledger shows the driver's
//    share and the cash collected) and completes it.
//
// Both drivers end offline and no trip is left open. driver11 and driver12
// go online about 13 km from the pickup: outside the dispatch radius (10 km),
// so the system's own offers (the default `batch` policy re-offers a waiting
// booking every few seconds) never reach them first, and inside the admin's
// picker (three times the radius).
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors, waitForAttribute } from './support/flows';

const DOCS_SCREENSHOTS = resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const LIVE = { timeoutMs: 20_000 };
const POLL = { timeout: 20_000 };

const PICKUP = { lat: 39.2825, lng: -76.5927, add: 'Fells Point, Baltimore' };
const DROP = { lat: 39.2905, lng: -76.5794, add: 'Patterson Park, Baltimore' };
/** About 13 km north of the pickup: past the dispatch radius, inside the admin's picker. */
const FAR_AWAY = { lat: 39.4, lng: -76.6 };
/** Where the second trip really ends: about 390 m north of its booked drop. */
const REAL_END = { lat: 39.294, lng: -76.5794 };

interface BookingJson {
  id: string;
  reference: string;
  status: string;
  otp: number | false | null;
  actualDrop?: { lat: number; lng: number } | null;
}

interface Me {
  user: { id: string; carType: string | null };
}

/** A screenshot committed with the docs, once every map on the page has drawn. */
async function docsScreenshot(page: Page, name: string) {
  // The shared helper waits for the maps' tiles, and keeps a copy with the run's others.
  await screenshot(page, name);
  mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: resolve(DOCS_SCREENSHOTS, `${name}.png`) });
}

/** A new rider whose first sign-in makes the account, with the names booking asks for. */
async function newRider(email: string, firstName: string, lastName: string) {
  const token = await apiSignIn(email);
  await call('PATCH', '/users/me', token, { firstName, lastName });
  return token;
}

/** A demo driver's session, id and car type (demo drivers' types go round the list). */
async function driverAccount(email: string) {
  const token = await apiSignIn(email);
  const me = (await call('GET', '/auth/me', token)) as Me;
  return { token, id: me.user.id, carType: me.user.carType ?? '' };
}

/** Online with a fix far from the pickup (see above). */
async function online(token: string) {
  await call('POST', '/drivers/me/status', token, { driverActiveStatus: true, location: FAR_AWAY });
}

async function offline(token: string) {
  if (token) await call('POST', '/drivers/me/status', token, { driverActiveStatus: false }).catch(() => undefined);
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** The whole page, for a look at what lies below the fold (kept with the run's screenshots). */
async function wholePage(page: Page, name: string) {
  await page.screenshot({ path: resolve(import.meta.dirname, 'screenshots', `${name}.png`), fullPage: true });
}

/** Closes the toasts on screen, newest first. */
async function dismissToasts(page: Page) {
  const toasts = page.getByTestId('notification');
  while ((await toasts.count()) > 0) {
    await toasts.last().getByRole('button').click();
    await page.waitForTimeout(300);
  }
}

describe("a booking's page in the panel", () => {
  let browser: Browser;
  let admin: Person;
  let adminToken = '';
  let autoDispatchBefore = true;
  let driver11 = { token: '', id: '', carType: '' };
  let driver12 = { token: '', id: '', carType: '' };
  let unassigned: BookingJson;
  let cashTrip: BookingJson;

  beforeAll(async () => {
    adminToken = await apiSignIn('admin@demo.wayfare');
    const settings = (await call('GET', '/settings', null)) as { autoDispatch: boolean };
    autoDispatchBefore = settings.autoDispatch;
    if (!settings.autoDispatch) await call('PATCH', '/settings', adminToken, { autoDispatch: true });
    browser = await launchBrowser();
    admin = await newPerson(browser, 'admin', { viewport: DESKTOP });
    await signIn(admin, 'admin@demo.wayfare');
  });

  afterAll(async () => {
    // Leave the shared server as it was: no trip open, both drivers offline.
    if (adminToken && unassigned) {
      const now = (await call('GET', `/bookings/${unassigned.id}`, adminToken)) as BookingJson;
      if (!['CANCELLED', 'COMPLETE'].includes(now.status)) await call('POST', `/bookings/${unassigned.id}/cancel`, adminToken, { reason: 'Browser test clean-up' }).catch(() => undefined);
    }
    if (adminToken && cashTrip) {
      const now = (await call('GET', `/bookings/${cashTrip.id}`, adminToken)) as BookingJson;
      if (now.status === 'STARTED' && driver12.token) await call('POST', `/bookings/${cashTrip.id}/reach`, driver12.token, {}).catch(() => undefined);
      if (['REACHED', 'PENDING'].includes(now.status) || now.status === 'STARTED') await call('POST', `/bookings/${cashTrip.id}/settle`, adminToken, { mode: 'cash' }).catch(() => undefined);
      if (['NEW', 'ACCEPTED', 'ARRIVED'].includes(now.status)) await call('POST', `/bookings/${cashTrip.id}/cancel`, adminToken, { reason: 'Browser test clean-up' }).catch(() => undefined);
      else await call('POST', `/bookings/${cashTrip.id}/complete`, adminToken, {}).catch(() => undefined);
    }
    await offline(driver11.token);
    await offline(driver12.token);
    if (adminToken && !autoDispatchBefore) await call('PATCH', '/settings', adminToken, { autoDispatch: false });
    await browser?.close();
  });

  it('shows a booking nobody took as unassigned in the grid, tinted, and in its Unassigned filter', async () => {
    const riderToken = await newRider('rider41@demo.wayfare', 'Nadia', 'Waiting');
    // driver11's car type: driver11 is offline, so nobody near the pickup takes it.
    driver11 = await driverAccount('driver11@demo.wayfare');
    expect(driver11.carType).not.toBe('');
    unassigned = (await call('POST', '/bookings', riderToken, { pickup: PICKUP, drop: DROP, carType: driver11.carType, bookLater: false })) as BookingJson;
    expect(unassigned.status).toBe('NEW');

    const { page } = admin;
    await page.goto('/bookings');
    await page.getByTestId('bookings-grid-search').fill(unassigned.reference);
    const row = page.locator('[data-testid="bookings-grid"] [role="row"]', { hasText: unassigned.reference }).first();
    await row.waitFor({ timeout: 15_000 });
    expect(await row.getAttribute('class')).toContain('panel-row-warning');
    expect(await row.getByTestId('unassigned-chip').textContent()).toBe('Unassigned');
    expect(await row.getByTestId('status-chip').getAttribute('data-status')).toBe('NEW');
    await screenshot(page, 'booking-page-grid-unassigned');

    // The Unassigned filter keeps it; the status filter's other choices are the server's.
    await page.getByTestId('bookings-status-filter').click();
    await page.getByTestId('bookings-filter-unassigned').click();
    await row.waitFor({ timeout: 15_000 });
    const statuses = await page.locator('[data-testid="bookings-grid"] [role="row"][data-id] [data-testid="status-chip"]').evaluateAll((chips) =>
      chips.map((chip) => chip.getAttribute('data-status')),
    );
    expect(new Set(statuses)).toEqual(new Set(['NEW']));

    await row.locator('[data-field="customer_name"]').click();
    await page.waitForURL(`**/bookings/${unassigned.id}/manage`);
    await waitForAttribute(page, 'booking-page', 'data-status', 'NEW');
    expect(await page.getByTestId('booking-unassigned').textContent()).toBe('Unassigned');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Booking ${unassigned.reference}`);
    expect(await page.getByTestId('booking-rider').textContent()).toContain('Nadia Waiting');
    expect(await page.getByTestId('panel-menu-bookings').getAttribute('class')).toContain('Mui-selected');
  });

  it('assigns driver11 from the page with automatic dispatch on; the accept shows at once, with the offer in the timeline', async () => {
    const { page } = admin;
    await online(driver11.token);
    await page.getByTestId('booking-action-assign').click();
    const dialog = page.getByTestId('assign-dialog');
    await dialog.waitFor();
    const candidate = dialog.locator(`[data-testid="assign-candidate"][data-driver-id="${driver11.id}"]`);
    await candidate.waitFor({ timeout: 15_000 });
    await candidate.click();
    await dialog.getByTestId('assign-confirm').click();
    await expect.poll(() => page.getByTestId('notification').allTextContents(), POLL).toContain('Driver assigned successfully and notified');
    await dialog.waitFor({ state: 'detached' });

    const offered = (await call('GET', `/bookings/${unassigned.id}`, adminToken)) as BookingJson & { requestedDrivers: Record<string, boolean> };
    expect(offered.requestedDrivers[driver11.id]).toBe(true);
    await call('POST', `/bookings/${unassigned.id}/accept`, driver11.token, {});

    // The socket's `booking` event: no reload.
    await waitForAttribute(page, 'booking-page', 'data-status', 'ACCEPTED', LIVE);
    expect(await page.getByTestId('booking-unassigned').count()).toBe(0);
    await expect.poll(() => page.getByTestId('booking-driver-name').textContent(), POLL).toMatch(/\S/);
    const offer = page.locator(`[data-testid="timeline-offer"][data-driver="${driver11.id}"]`);
    await expect.poll(() => offer.getAttribute('data-outcome'), POLL).toBe('accepted');
    // The offer is told as the admin's, not one of the system's waves.
    expect(await offer.locator('xpath=ancestor::*[@data-testid="timeline-wave"]').getAttribute('data-by')).toBe('admin');
    const kinds = await page.getByTestId('timeline-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind')));
    expect(kinds).toContain('offered');
    expect(kinds.at(-1)).toBe('accepted');
    expect(await page.getByTestId('booking-action-assign').count()).toBe(0);
    await screenshot(page, 'booking-page-accepted');
    await wholePage(page, 'booking-page-accepted-whole');
  });

  it('cancels the booking from its page with a reason, after the confirm dialog', async () => {
    const { page } = admin;
    await page.getByTestId('booking-action-cancel').click();
    const dialog = page.getByTestId('cancel-dialog');
    await dialog.getByLabel('Changed my plans').click();
    await dialog.getByTestId('cancel-confirm').click();
    const confirmDialog = page.getByTestId('confirm-dialog');
    expect(await confirmDialog.getByTestId('confirm-message').textContent()).toContain('Changed my plans');
    await confirmDialog.getByTestId('confirm-ok').click();
    await waitForAttribute(page, 'booking-page', 'data-status', 'CANCELLED', LIVE);
    expect(await page.getByTestId('booking-cancelled').textContent()).toContain('Cancelled by an administrator: Changed my plans');
    expect(await page.getByTestId('booking-actions').count()).toBe(0);
    const stored = (await call('GET', `/bookings/${unassigned.id}`, adminToken)) as BookingJson & { reason: string; cancelledBy: string };
    expect([stored.status, stored.reason, stored.cancelledBy]).toEqual(['CANCELLED', 'Changed my plans', 'admin']);
    await offline(driver11.token);
  });

  it('lists an unpaid trip under Money owed; its page shows where it really ended and settles it in cash, with the ledger to show for it', async () => {
    const riderToken = await newRider('rider42@demo.wayfare', 'Carla', 'Cash');
    driver12 = await driverAccount('driver12@demo.wayfare');
    await online(driver12.token);
    cashTrip = (await call('POST', '/bookings', riderToken, { pickup: PICKUP, drop: DROP, carType: driver12.carType, bookLater: false, payment_mode: 'cash' })) as BookingJson;
    await call('POST', `/bookings/${cashTrip.id}/assign`, adminToken, { driver: driver12.id });
    // The driver has come near before accepting: the track starts by the pickup.
    await call('POST', '/drivers/me/location', driver12.token, { lat: PICKUP.lat + 0.0035, lng: PICKUP.lng - 0.004 });
    await call('POST', `/bookings/${cashTrip.id}/accept`, driver12.token, {});
    await call('POST', `/bookings/${cashTrip.id}/chat`, riderToken, { message: 'I am by the blue door' });
    await pause(1100);
    await call('POST', '/drivers/me/location', driver12.token, { lat: PICKUP.lat + 0.0003, lng: PICKUP.lng });
    await call('POST', `/bookings/${cashTrip.id}/arrive`, driver12.token, {});
    await call('POST', `/bookings/${cashTrip.id}/start`, driver12.token, cashTrip.otp ? { otp: cashTrip.otp } : {});
    // Along the way to the park, then on past its corner: a path to draw.
    for (const [lat, lng] of [[39.2848, -76.5893], [39.2871, -76.5859], [39.2893, -76.5822], [39.2915, -76.5796], [REAL_END.lat, REAL_END.lng]]) {
      await pause(1100);
      await call('POST', '/drivers/me/location', driver12.token, { lat, lng });
    }
    const reached = (await call('POST', `/bookings/${cashTrip.id}/reach`, driver12.token, {})) as BookingJson;
    expect(reached.status).toBe('REACHED');
    // The rider says they will pay by card in the app, and never does: the trip is PENDING, money owed.
    const pending = (await call('POST', `/bookings/${cashTrip.id}/pay`, riderToken, { payment_mode: 'card' })) as BookingJson;
    expect(pending.status).toBe('PENDING');

    const { page } = admin;
    await page.getByTestId('panel-menu-moneyowed').click();
    await page.waitForURL('**/moneyowed');
    const owedRow = page.locator('[data-testid="owed-trips-grid"] [role="row"]', { hasText: cashTrip.reference }).first();
    await owedRow.waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('owed-trips-total').textContent()).toMatch(/^\d+ · \$\d+\.\d{2}$/);
    await screenshot(page, 'booking-page-money-owed');
    // The row opens the booking's page, where the driver's cash settles it.
    await owedRow.getByTestId('owed-booking-link').click();
    await page.waitForURL(`**/bookings/${cashTrip.id}/manage`);
    await waitForAttribute(page, 'booking-page', 'data-status', 'PENDING');
    await page.getByTestId('booking-pending-note').waitFor();
    // The booked drop stays what was booked; the real end is beside it.
    const stored = (await call('GET', `/bookings/${cashTrip.id}`, adminToken)) as { dropAddress: string; actualDrop: { lat: number; lng: number } | null };
    expect(stored.actualDrop).toMatchObject({ lat: expect.closeTo(REAL_END.lat, 3), lng: expect.closeTo(REAL_END.lng, 3) });
    expect(await page.getByTestId('booking-drop').textContent()).toBe(stored.dropAddress);
    await page.getByTestId('booking-ended-at').waitFor();
    expect(((await page.getByTestId('booking-ended-at').textContent()) ?? '').trim()).not.toBe('');
    // On the map too, once it has drawn.
    await page.getByTestId('map-marker-end').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('ledger-empty').textContent()).toBe('This booking has moved no money yet.');
    // The rider's message, read only, named.
    await page.getByTestId('booking-chat').getByText('I am by the blue door').waitFor();
    expect(await page.getByTestId('booking-chat').getByTestId('chat-sender').first().textContent()).toBe('Carla Cash');

    await page.getByTestId('booking-action-settle-cash').click();
    const confirmDialog = page.getByTestId('confirm-dialog');
    expect(await confirmDialog.getByTestId('confirm-message').textContent()).toContain('in cash');
    await confirmDialog.getByTestId('confirm-ok').click();
    await waitForAttribute(page, 'booking-page', 'data-status', 'PAID', LIVE);
    await expect.poll(() => page.getByTestId('ledger-entry').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind')).sort()), POLL).toEqual(
      expect.arrayContaining(['CashCollected', 'DriverShare']),
    );
    expect(await page.getByTestId('fare-paid_cash').count()).toBe(1);
    expect(await page.getByTestId('booking-trip').textContent()).toContain('© OpenStreetMap contributors');
    // The toast of the settlement would cover the menu in the picture.
    await dismissToasts(page);
    await page.evaluate(() => window.scrollTo(0, 0));
    await docsScreenshot(page, 'booking-page');
    await wholePage(page, 'booking-page-paid-whole');
  });

  it('fits a phone and speaks Arabic right to left', async () => {
    const arabic = await newPerson(browser, 'admin-ar', { viewport: DESKTOP, locale: 'ar' });
    await signIn(arabic, 'admin@demo.wayfare');
    await arabic.page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await arabic.page.goto(`/bookings/${cashTrip.id}/manage`);
    await waitForAttribute(arabic.page, 'booking-page', 'data-status', 'PAID');
    expect(await arabic.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await arabic.page.getByTestId('ledger-entry').first().waitFor();
    await docsScreenshot(arabic.page, 'booking-page-ar');
    await wholePage(arabic.page, 'booking-page-ar-whole');
    // Phone numbers and e-mail read left to right inside the right-to-left cards.
    await arabic.page.getByTestId('booking-people').screenshot({ path: resolve(import.meta.dirname, 'screenshots', 'booking-page-ar-people.png') });
    expectNoErrors(arabic);
    await arabic.context.close();

    const phone = await newPerson(browser, 'admin-phone', { viewport: PHONE });
    await signIn(phone, 'admin@demo.wayfare');
    await phone.page.goto(`/bookings/${cashTrip.id}/manage`);
    await waitForAttribute(phone.page, 'booking-page', 'data-status', 'PAID');
    await phone.page.getByTestId('ledger-entry').first().waitFor();
    // Nothing scrolls sideways.
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(1);
    await docsScreenshot(phone.page, 'booking-page-phone');
    await wholePage(phone.page, 'booking-page-phone-whole');
    expectNoErrors(phone);
    await phone.context.close();
  });

  it('completes the paid trip from its page, and the drivers go offline', async () => {
    const { page } = admin;
    await page.getByTestId('booking-action-complete').click();
    await page.getByTestId('confirm-dialog').getByTestId('confirm-ok').click();
    await waitForAttribute(page, 'booking-page', 'data-status', 'COMPLETE', LIVE);
    expect(await page.getByTestId('booking-action-complete').count()).toBe(0);
    await offline(driver12.token);
    const drivers = await Promise.all(
      [driver11.token, driver12.token].map(async (token) => ((await call('GET', '/auth/me', token)) as { user: { driverActiveStatus: boolean } }).user.driverActiveStatus),
    );
    expect(drivers).toEqual([false, false]);
  });

  it('left no error in the console', () => {
    expectNoErrors(admin);
  });
});
