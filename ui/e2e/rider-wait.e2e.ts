// Issue #34, the rider's side: every booking ends well.
// (a) The admin makes the platform give up on a booking after one minute
// without a driver (noDriverCancelMinutes 1; back to 10 afterwards). A new
// rider, rider31@demo.wayfare, on a phone books a car type nobody drives
// online, watches the waiting clock run, and about a minute later reads
// that no driver was free and nothing was charged (screenshots in English
// and Arabic); Try again makes a new booking of the same trip, waiting
// again, which the rider cancels for free.
// (b) Another new rider, rider32@demo.wayfare, books the car type of
// driver3, who goes online beside the pickup and runs the trip over the API
// to the end, paid in cash; the rider skips the rating and is told the trip
// is closed. Driver 3 is left offline; no booking of this file stays open.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors, fillBookingForm, waitForAttribute } from './support/flows';

const ADMIN = 'admin@demo.wayfare';
const WAITING_RIDER = 'rider31@demo.wayfare';
const PAYING_RIDER = 'rider32@demo.wayfare';
const DRIVER = 'driver3@demo.wayfare';
const PHONE = { width: 390, height: 844 };
const CAR_TYPES = ['Economy', 'Comfort', 'XL'];
const TRIP = { pickup: ['Fells', 'Fells Point'] as [string, string], drop: ['Patterson', 'Patterson Park'] as [string, string] };
/** Beside Fells Point, where the rider waits: within any dispatch radius. */
const NEAR_PICKUP = { lat: 39.2838, lng: -76.5925, accuracy: 8 };
/** Where the driver really stops: about 1 km short of Patterson Park. */
const STOPPED_AT = { lat: 39.2862, lng: -76.5862, accuracy: 8 };
const DOCS_SCREENSHOTS = resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots');
const LIVE = { timeoutMs: 20_000 };

interface BookingJson {
  id: string;
  status: string;
  otp: number | false | null;
  reason: string;
  cancelledBy: string | null;
  cancellationFee: number;
  searchingSince?: number | null;
  bookingDate: number;
  carType: string;
  pickup: { lat: number; lng: number };
  drop: { lat: number; lng: number };
  timers?: Record<string, { at: number } | null>;
}

interface UserJson {
  id: string;
  carType: string | null;
  driverActiveStatus: boolean;
}

/** A screenshot committed with the docs, once the map has drawn its tiles. */
async function docsScreenshot(page: Page, name: string) {
  mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(700);
  await page
    .waitForFunction(() => Array.from(document.querySelectorAll('[data-renderer="maplibre"]')).every((map) => map.getAttribute('data-map-idle') === 'true'), undefined, {
      timeout: 20_000,
    })
    .catch(() => console.warn(`screenshot ${name}: the map was still loading after 20 s`));
  await page.screenshot({ path: resolve(DOCS_SCREENSHOTS, `${name}.png`) });
}

/** A new rider: the first sign-in makes the account, and booking asks for a name. */
async function newRider(contact: string, firstName: string, lastName: string) {
  const token = await apiSignIn(contact);
  await call('PATCH', '/users/me', token, { firstName, lastName });
  return token;
}

/** The rider books the trip in the form and opens it; resolves with the booking's id. */
async function bookInTheForm(page: Page, carType: string) {
  await page.goto('/');
  await fillBookingForm(page, { ...TRIP, carType });
  await page.getByTestId('book-button').click();
  await page.getByTestId('confirm-booking').click();
  await page.getByTestId('go-to-booking').click();
  await page.waitForURL(/\/bookings\?trip=/);
  const id = new URL(page.url()).searchParams.get('trip') ?? '';
  expect(id).not.toBe('');
  await waitForAttribute(page, 'trip-view', 'data-booking-id', id);
  return id;
}

async function showLanguage(page: Page, locale: 'en' | 'ar') {
  await page.evaluate((chosen) => window.localStorage.setItem('wayfare.lang', chosen), locale);
  await page.reload();
  await page.waitForFunction((chosen) => document.documentElement.lang === chosen, locale);
  await page.getByTestId('trip-view').waitFor();
}

describe("the rider's booking always ends well", () => {
  let browser: Browser;
  let waitingRider: Person;
  let payingRider: Person;
  let adminToken = '';
  let driverToken = '';
  let waitingToken = '';
  let payingToken = '';
  /** Bookings this file made, to leave none open whatever happens. */
  const made: string[] = [];

  beforeAll(async () => {
    adminToken = await apiSignIn(ADMIN);
    await call('PATCH', '/settings', adminToken, { noDriverCancelMinutes: 1 });
    waitingToken = await newRider(WAITING_RIDER, 'Yara', 'Haddad');
    payingToken = await newRider(PAYING_RIDER, 'Tom', 'Becker');
    driverToken = await apiSignIn(DRIVER);
    browser = await launchBrowser();
    waitingRider = await newPerson(browser, 'rider31', { viewport: PHONE });
    payingRider = await newPerson(browser, 'rider32');
  });

  afterAll(async () => {
    await browser?.close();
    for (const id of made) {
      const booking = (await call('GET', `/bookings/${id}`, adminToken).catch(() => null)) as BookingJson | null;
      if (booking && ['NEW', 'ACCEPTED', 'PAYMENT_PENDING'].includes(booking.status)) {
        await call('POST', `/bookings/${id}/cancel`, adminToken, { reason: 'End of the browser test' }).catch(() => undefined);
      }
    }
    if (driverToken) await call('POST', '/drivers/me/status', driverToken, { driverActiveStatus: false }).catch(() => undefined);
    if (adminToken) await call('PATCH', '/settings', adminToken, { noDriverCancelMinutes: 10 });
  });

  describe('(a) no driver takes the booking', () => {
    let carType = '';
    let firstId = '';

    it('books a car type nobody drives online, and sees the waiting clock run and when the search ends', async () => {
      const drivers = (await call('GET', '/users?role=driver&limit=500', adminToken)) as { items: UserJson[] };
      const busy = new Set(drivers.items.filter((driver) => driver.driverActiveStatus).map((driver) => driver.carType));
      carType = CAR_TYPES.find((name) => !busy.has(name)) ?? '';
      expect(carType, `every car type has a driver online: ${[...busy].join(', ')}`).not.toBe('');

      await signIn(waitingRider, WAITING_RIDER);
      const page = waitingRider.page;
      firstId = await bookInTheForm(page, carType);
      made.push(firstId);
      await waitForAttribute(page, 'trip-view', 'data-status', 'NEW');
      const booking = (await call('GET', `/bookings/${firstId}`, waitingToken)) as BookingJson;
      const since = booking.searchingSince ?? booking.bookingDate;
      expect(booking.timers?.auto_cancel?.at).toBeDefined();
      expect(booking.timers!.auto_cancel!.at - since).toBeGreaterThanOrEqual(55_000);
      expect(booking.timers!.auto_cancel!.at - since).toBeLessThanOrEqual(65_000);

      const clock = page.getByTestId('wait-clock');
      const first = (await clock.textContent()) ?? '';
      expect(first).toMatch(/^0:\d{2}$/);
      await expect.poll(async () => (await clock.textContent()) ?? '', { timeout: 5_000 }).not.toBe(first);
      expect(await page.getByTestId('search-ends').textContent()).toMatch(/^We'll keep looking until \d{2}:\d{2}\.$/);
      expect(await page.getByTestId('trip-next-step').textContent()).toBe('Looking for a driver near you…');
      expect(await page.getByTestId('cancel-booking').textContent()).toBe('Cancel (free)');
      await screenshot(page, 'rider-waiting-phone');
    });

    it('after about a minute reads that no driver was free and nothing was charged', async () => {
      const page = waitingRider.page;
      const created = ((await call('GET', `/bookings/${firstId}`, waitingToken)) as BookingJson).bookingDate;
      await waitForAttribute(page, 'trip-view', 'data-status', 'CANCELLED', { timeoutMs: 100_000 });
      const waited = Date.now() - created;
      expect(waited).toBeGreaterThan(55_000);
      expect(waited).toBeLessThan(80_000);
      const notice = page.getByTestId('trip-cancelled');
      expect(await notice.getAttribute('data-reason')).toBe('no_driver_available');
      expect(await notice.textContent()).toContain('No driver was free to take your trip. You were not charged.');
      expect(await page.getByTestId('trip-view').textContent()).not.toContain('no_driver_available');
      const booking = (await call('GET', `/bookings/${firstId}`, waitingToken)) as BookingJson;
      expect(booking).toMatchObject({ cancelledBy: 'system', reason: 'no_driver_available', cancellationFee: 0 });
      // The rider's bookings table says it in words too.
      const row = page.locator(`[data-testid="booking-row"][data-booking-id="${firstId}"]`);
      expect(await row.textContent()).toContain('No driver was available');
      await docsScreenshot(page, 'rider-no-driver-phone');

      await showLanguage(page, 'ar');
      expect(await page.getByTestId('trip-cancelled').textContent()).toContain('لم يكن أي سائق متاحًا لرحلتك');
      expect(await page.getByTestId('rebook').textContent()).toBe('حاول مرة أخرى');
      await docsScreenshot(page, 'rider-no-driver-phone-ar');
      await showLanguage(page, 'en');
    });

    it('tries again: a new booking of the same trip, waiting for a driver, cancelled for free', async () => {
      const page = waitingRider.page;
      const rebooked = page.waitForResponse(
        (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === `/api/v1/bookings/${firstId}/rebook`,
      );
      await page.getByTestId('rebook').click();
      expect((await rebooked).ok()).toBe(true);
      await page.waitForURL((url) => (url.searchParams.get('trip') ?? firstId) !== firstId);
      const secondId = new URL(page.url()).searchParams.get('trip') ?? '';
      made.push(secondId);
      await waitForAttribute(page, 'trip-view', 'data-booking-id', secondId);
      await waitForAttribute(page, 'trip-view', 'data-status', 'NEW');
      await page.getByTestId('wait-clock').waitFor();
      const [before, again] = (await Promise.all([
        call('GET', `/bookings/${firstId}`, waitingToken),
        call('GET', `/bookings/${secondId}`, waitingToken),
      ])) as [BookingJson, BookingJson];
      expect(again).toMatchObject({ status: 'NEW', carType: before.carType, pickup: before.pickup, drop: before.drop });

      await page.getByTestId('cancel-booking').click();
      await page.getByTestId('cancel-free-note').waitFor();
      await page.getByLabel('Changed my plans').check();
      await page.getByTestId('cancel-confirm').click();
      await waitForAttribute(page, 'trip-view', 'data-status', 'CANCELLED');
      expect(await page.getByTestId('trip-cancelled').textContent()).toBe('This booking was cancelled: Changed my plans');
      const cancelled = (await call('GET', `/bookings/${secondId}`, waitingToken)) as BookingJson;
      expect(cancelled).toMatchObject({ status: 'CANCELLED', cancelledBy: 'rider', cancellationFee: 0 });
      expectNoErrors(waitingRider);
    });
  });

  describe('(b) the trip ends and the rider skips the rating', () => {
    let bookingId = '';

    it("books driver 3's car type, and driver 3 runs the trip to the end, paid in cash", async () => {
      const me = (await call('GET', '/auth/me', driverToken)) as { user: UserJson };
      const carType = me.user.carType ?? '';
      expect(CAR_TYPES).toContain(carType);
      await call('POST', '/drivers/me/status', driverToken, { driverActiveStatus: true, location: NEAR_PICKUP });

      await signIn(payingRider, PAYING_RIDER);
      const page = payingRider.page;
      bookingId = await bookInTheForm(page, carType);
      made.push(bookingId);

      // The offer reaches driver 3 within a dispatch wave: accept it when it has.
      await expect
        .poll(
          async () => {
            try {
              await call('POST', `/bookings/${bookingId}/accept`, driverToken, {});
              return 'accepted';
            } catch (error) {
              return String(error);
            }
          },
          { timeout: 30_000, interval: 1_000 },
        )
        .toBe('accepted');
      await waitForAttribute(page, 'trip-view', 'data-status', 'ACCEPTED', LIVE);
      expect(await page.getByTestId('trip-next-step').textContent()).toBe('Your driver is on the way');

      await call('POST', `/bookings/${bookingId}/arrive`, driverToken, {});
      const { otp } = (await call('GET', `/bookings/${bookingId}`, payingToken)) as BookingJson;
      await call('POST', `/bookings/${bookingId}/start`, driverToken, otp ? { otp } : {});
      await call('POST', '/drivers/me/location', driverToken, STOPPED_AT);
      await call('POST', `/bookings/${bookingId}/reach`, driverToken, {});
      await call('POST', `/bookings/${bookingId}/pay`, driverToken, { payment_mode: 'cash' });
      await waitForAttribute(page, 'trip-view', 'data-status', 'PAID', LIVE);
    });

    it('keeps the booked drop beside where the trip ended, says when the trip closes by itself, and skips the rating', async () => {
      const page = payingRider.page;
      const trip = page.getByTestId('trip-view');
      expect(await trip.getByTestId('drop-address').textContent()).toContain('Patterson Park');
      expect(await trip.getByTestId('ended-at').textContent()).toMatch(/^Ended at: \S/);
      // The bookings table keeps both too.
      const row = page.locator(`[data-testid="booking-row"][data-booking-id="${bookingId}"]`);
      expect(await row.getByTestId('drop-address').textContent()).toContain('Patterson Park');
      expect(await row.getByTestId('ended-at').textContent()).toBe(await trip.getByTestId('ended-at').textContent());
      expect(await page.getByTestId('trip-next-step').textContent()).toBe('Rate your driver, or skip');
      await page.getByTestId('rating-panel').waitFor();
      expect(await page.getByTestId('auto-complete').textContent()).toMatch(/^If you do not rate, the trip closes by itself at \d{2}:\d{2}\.$/);
      await screenshot(page, 'rider-rate-or-skip');

      const rated = page.waitForResponse(
        (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === `/api/v1/bookings/${bookingId}/rate`,
      );
      await page.getByTestId('rate-skip').click();
      expect((await rated).request().postDataJSON()).toEqual({ skip: true });
      await waitForAttribute(page, 'trip-view', 'data-status', 'COMPLETE');
      expect(await page.getByTestId('trip-complete').textContent()).toBe('Trip closed');
      expect(await trip.getByTestId('status-chip').textContent()).toBe('Complete');
      expect(await page.getByTestId('rating-panel').count()).toBe(0);
      const booking = (await call('GET', `/bookings/${bookingId}`, payingToken)) as BookingJson & { rating: number | null };
      expect(booking).toMatchObject({ status: 'COMPLETE', rating: null });
      await screenshot(page, 'rider-trip-closed');

      await call('POST', '/drivers/me/status', driverToken, { driverActiveStatus: false });
      const driver = (await call('GET', '/auth/me', driverToken)) as { user: UserJson };
      expect(driver.user.driverActiveStatus).toBe(false);
      expectNoErrors(payingRider);
    });
  });
});
