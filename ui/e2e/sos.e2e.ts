// Issue #33: a rider on a trip presses SOS (the browser shares a position);
// the admin's panel shows the red banner within a second, without a reload;
// the admin opens the alert on the SOS screen, resolves it with a note, and
// the banner is gone while the alert shows resolved with its note.
// The trip itself is set up over the API (booking-flow.e2e.ts drives that
// part through the screens).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors } from './support/flows';

const PICKUP = { lat: 39.2846, lng: -76.5934, add: 'Fells Point, Baltimore' };
const DROP = { lat: 39.2904, lng: -76.6122, add: 'Inner Harbor, Baltimore' };
/** Where the rider's phone says it is. */
const RIDER_AT = { latitude: 39.2871, longitude: -76.6012 };
const PANIC = '+1 410 555 0911';

interface BookingJson {
  id: string;
  reference: string;
  status: string;
  otp: number | false | null;
}

describe('SOS: a rider raises it, an admin resolves it', () => {
  let browser: Browser;
  let rider: Person;
  let admin: Person;
  let adminToken = '';
  let riderToken = '';
  let driverToken = '';
  let booking: BookingJson;
  let before: { autoDispatch: boolean; panic?: string };

  beforeAll(async () => {
    browser = await launchBrowser();
    adminToken = await apiSignIn('admin@demo.wayfare');
    riderToken = await apiSignIn('rider1@demo.wayfare');
    // driver16 drives an Economy car and no other file uses them.
    driverToken = await apiSignIn('driver16@demo.wayfare');
    before = (await call('GET', '/settings', null)) as typeof before;
    // The admin assigns the trip by hand, and the platform has a panic number.
    await call('PATCH', '/settings', adminToken, { autoDispatch: false, panic: PANIC });
    await call('POST', '/drivers/me/status', driverToken, { driverActiveStatus: true });
    await call('POST', '/drivers/me/location', driverToken, { lat: PICKUP.lat + 0.002, lng: PICKUP.lng });
    booking = (await call('POST', '/bookings', riderToken, { pickup: PICKUP, drop: DROP, carType: 'Economy', bookLater: false })) as BookingJson;
    const driverId = ((await call('GET', '/auth/me', driverToken)) as { user: { id: string } }).user.id;
    await call('POST', `/bookings/${booking.id}/assign`, adminToken, { driver: driverId });
    await call('POST', `/bookings/${booking.id}/accept`, driverToken, {});
    await call('POST', `/bookings/${booking.id}/arrive`, driverToken, {});
    booking = (await call('POST', `/bookings/${booking.id}/start`, driverToken, booking.otp ? { otp: booking.otp } : {})) as BookingJson;
    expect(booking.status).toBe('STARTED');

    rider = await newPerson(browser, 'rider', { viewport: { width: 390, height: 844 } });
    await rider.context.grantPermissions(['geolocation']);
    await rider.context.setGeolocation(RIDER_AT);
    admin = await newPerson(browser, 'admin', { viewport: { width: 1280, height: 800 } });
    await signIn(rider, 'rider1@demo.wayfare');
    await signIn(admin, 'admin@demo.wayfare');
  });

  afterAll(async () => {
    // Leave the platform as it was: the trip finished, the settings back.
    if (booking?.status === 'STARTED' || booking?.status === 'ACCEPTED') {
      await call('POST', `/bookings/${booking.id}/reach`, driverToken, {}).catch(() => undefined);
      await call('POST', `/bookings/${booking.id}/pay`, driverToken, { payment_mode: 'cash' }).catch(() => undefined);
      await call('POST', `/bookings/${booking.id}/rate`, riderToken, { rating: 5 }).catch(() => undefined);
    }
    if (driverToken) await call('POST', '/drivers/me/status', driverToken, { driverActiveStatus: false }).catch(() => undefined);
    if (adminToken && before) await call('PATCH', '/settings', adminToken, { autoDispatch: before.autoDispatch, panic: before.panic ?? '' });
    await browser?.close();
  });

  it('the admin sits on the dashboard with no banner', async () => {
    await admin.page.waitForURL(/\/dashboard$/);
    await admin.page.getByTestId('panel-menu-sos').waitFor();
    expect(await admin.page.getByTestId('sos-banner').count()).toBe(0);
  });

  it('the rider presses SOS on the trip, confirms, and is offered the panic number', async () => {
    const { page } = rider;
    await page.goto(`/bookings?trip=${booking.id}`);
    await page.getByTestId('trip-view').waitFor();
    await page.getByTestId('sos-button').waitFor();
    await screenshot(page, 'sos-button-phone');
    await page.getByTestId('sos-button').click();
    await page.getByTestId('confirm-dialog').waitFor();
    await screenshot(page, 'sos-confirm-phone');
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('sos-sent').waitFor();
    const told = Date.now();
    // The admin's panel hears of it at once, without a reload.
    await admin.page.getByTestId('sos-banner').waitFor({ timeout: 1_000 });
    expect(Date.now() - told).toBeLessThan(1_000);

    expect(await page.getByTestId('sos-sent').textContent()).toContain('Help has been alerted');
    expect(await page.getByTestId('sos-call').getAttribute('href')).toBe('tel:+14105550911');
    expect(await page.getByTestId('sos-call').textContent()).toContain(PANIC);
    await screenshot(page, 'sos-rider-phone');
  });

  it('the banner names who raised it on which booking; the alert holds the phone\'s position', async () => {
    const { page } = admin;
    const line = page.getByTestId('sos-banner-alert').first();
    const text = (await line.textContent()) ?? '';
    expect(text).toContain(booking.reference);
    expect(text).toContain('Rider');
    const list = (await call('GET', '/sos?state=open', adminToken)) as { items: { id: string; booking: string; lat: number; lng: number }[] };
    const alert = list.items.find((item) => item.booking === booking.id);
    expect(alert).toBeDefined();
    expect([alert?.lat, alert?.lng]).toEqual([RIDER_AT.latitude, RIDER_AT.longitude]);
    await screenshot(page, 'sos-banner');
  });

  it('the admin opens it, resolves it with a note, and the banner is gone', async () => {
    const { page } = admin;
    await page.getByTestId('sos-banner-open').first().click();
    await page.waitForURL(/\/sos\?alert=/);
    const details = page.getByTestId('sos-details');
    await details.waitFor();
    expect(await details.getAttribute('data-state')).toBe('open');
    await expect.poll(() => page.getByText('© OpenStreetMap contributors').count()).toBeGreaterThan(0);
    await page.getByTestId('sos-resolve').click();
    await page.getByTestId('sos-resolve-dialog').waitFor();
    expect(await page.getByTestId('sos-resolve-submit').isDisabled()).toBe(true);
    const note = 'Called the rider: a flat tyre, all safe.';
    await page.getByTestId('sos-note').fill(note);
    await page.getByTestId('sos-resolve-submit').click();
    await page.getByTestId('sos-resolve-dialog').waitFor({ state: 'detached' });
    await page.getByTestId('sos-banner').waitFor({ state: 'detached', timeout: 2_000 });
    await expect.poll(() => details.getAttribute('data-state')).toBe('resolved');
    expect(await page.getByTestId('sos-details-note').textContent()).toBe(note);
    const row = page.locator('[data-testid="sos-grid"] [role="row"]', { hasText: booking.reference }).first();
    await row.waitFor();
    expect(await row.getByTestId('sos-state').getAttribute('data-state')).toBe('resolved');
    expect(await row.textContent()).toContain(note);
    await screenshot(page, 'sos-screen-resolved');
  });

  it('the driver raises one too; the banner and the SOS screen read right to left in Arabic, on a desktop and a phone', async () => {
    const raised = (await call('POST', `/bookings/${booking.id}/sos`, driverToken, { lat: 39.2866, lng: -76.6051 })) as {
      alert: { id: string; raised_by_role: string };
    };
    expect(raised.alert.raised_by_role).toBe('driver');
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const arabic = await newPerson(browser, `admin-ar-${name}`, { locale: 'ar', viewport });
      await signIn(arabic, 'admin@demo.wayfare');
      await arabic.page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
      await arabic.page.reload();
      await expect.poll(() => arabic.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
      await arabic.page.getByTestId('sos-banner').waitFor();
      expect(await arabic.page.getByTestId('sos-banner').textContent()).toContain('سائق');
      await screenshot(arabic.page, `sos-banner-${name}-ar`);
      await arabic.page.getByTestId('sos-banner-open').first().click();
      await arabic.page.getByTestId('sos-details').waitFor();
      // Nothing wider than the screen.
      expect(await arabic.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await screenshot(arabic.page, `sos-screen-${name}-ar`);
      expectNoErrors(arabic);
      await arabic.context.close();
    }
    await call('POST', `/sos/${raised.alert.id}/resolve`, adminToken, { note: 'Spoke to the driver.' });
  });

  it('the rider\'s button and call link read right to left in Arabic on a phone', async () => {
    const arabic = await newPerson(browser, 'rider-ar', { locale: 'ar', viewport: { width: 390, height: 844 } });
    await arabic.context.grantPermissions(['geolocation']);
    await arabic.context.setGeolocation(RIDER_AT);
    await signIn(arabic, 'rider1@demo.wayfare');
    await arabic.page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await arabic.page.goto(`/bookings?trip=${booking.id}`);
    await expect.poll(() => arabic.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await arabic.page.getByTestId('sos-button').click();
    await arabic.page.getByTestId('confirm-ok').click();
    await arabic.page.getByTestId('sos-sent').waitFor();
    expect(await arabic.page.getByTestId('sos-call').textContent()).toContain(PANIC);
    expect(await arabic.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(arabic.page, 'sos-rider-phone-ar');
    expectNoErrors(arabic);
    await arabic.context.close();
    const open = (await call('GET', '/sos?state=open', adminToken)) as { items: { id: string; booking: string }[] };
    for (const alert of open.items.filter((item) => item.booking === booking.id)) {
      await call('POST', `/sos/${alert.id}/resolve`, adminToken, { note: 'Arabic screenshot.' });
    }
  });

  it('nothing went wrong in either browser', () => {
    expectNoErrors(rider, admin);
  });
});
