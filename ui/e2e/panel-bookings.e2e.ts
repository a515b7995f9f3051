// The operating half of the panel (issue #12): the dashboard, the bookings
// grid with its row actions and export, and Add booking, as an admin, a fleet
// admin and a demo-mode admin use them, with a driver watching their console.
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { demoModeUrl, launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { choosePlace, chooseCarType, expectNoErrors, waitForAttribute } from './support/flows';
import { readXlsx } from './support/xlsx';

const LIVE = { timeoutMs: 15_000 };
const POLL = { timeout: 15_000 };
const WAIT = { timeout: 15_000 };
const PHONE = { width: 390, height: 844 };
const stamp = Date.now().toString(36).toUpperCase();

interface BookingJson {
  id: string;
  reference: string;
  status: string;
  customer_name: string;
}

const trip = {
  pickup: { lat: 39.2825, lng: -76.5927, add: 'Fells Point, Baltimore' },
  drop: { lat: 39.2905, lng: -76.5794, add: 'Patterson Park, Baltimore' },
  carType: 'Economy',
};

/** A row of the grid, found by searching its reference. */
async function showRow(page: Person['page'], reference: string) {
  await page.getByTestId('bookings-grid-search').fill(reference);
  const row = page.locator('[data-testid="bookings-grid"] [role="row"]', { hasText: reference });
  await row.first().waitFor({ timeout: 15_000 });
  return row.first();
}

describe('the panel: dashboard, bookings and Add booking', () => {
  let browser: Browser;
  let admin: Person;
  let driver: Person;
  let adminToken = '';
  let autoDispatchBefore = true;
  const riderName = { firstName: 'Panel', lastName: `Rider ${stamp}` };
  let riderId = '';

  beforeAll(async () => {
    browser = await launchBrowser();
    adminToken = await apiSignIn('admin@demo.wayfare');
    const settings = (await call('GET', '/settings', null)) as { autoDispatch: boolean };
    autoDispatchBefore = settings.autoDispatch;
    // Manual dispatch: the admin assigns drivers by hand.
    await call('PATCH', '/settings', adminToken, { autoDispatch: false });
    const rider = (await call('POST', '/users', adminToken, {
      usertype: 'rider',
      ...riderName,
      email: `panel-rider-${stamp.toLowerCase()}@example.com`,
      mobile: `+1410${String(Date.now()).slice(-7)}`,
    })) as { id: string };
    riderId = rider.id;
    admin = await newPerson(browser, 'admin');
    driver = await newPerson(browser, 'driver');
    await signIn(admin, 'admin@demo.wayfare');
    // driver10 drives an Economy car for the demo fleet.
    await signIn(driver, 'driver10@demo.wayfare');
    // No position in this browser: on the demo city the driver simulates, from where the seed put them.
    await driver.page.getByTestId('share-simulate').click();
    await driver.page.getByTestId('driver-online-toggle').click();
    await waitForAttribute(driver.page, 'driver-console', 'data-online', 'true');
  });

  afterAll(async () => {
    if (adminToken) await call('PATCH', '/settings', adminToken, { autoDispatch: autoDispatchBefore });
    await browser?.close();
  });

  it('opens on the dashboard: the gross earning cards and the online drivers on the live map', async () => {
    const { page } = admin;
    await page.waitForURL(/\/dashboard$/);
    await expect.poll(() => page.getByTestId('earning-today-amount').textContent()).toMatch(/^\$\d+\.\d{2}$/);
    await expect.poll(() => page.getByTestId('earning-total-amount').textContent()).toMatch(/^\$\d+\.\d{2}$/);
    // The socket's drivers feed puts the driver who just went online on the map.
    await expect.poll(async () => page.getByTestId('map-marker-car').count(), POLL).toBeGreaterThan(0);
    expect(await page.getByTestId('panel-menu').textContent()).toContain('Earning reports');
    await expect.poll(() => page.getByText('© OpenStreetMap contributors').count()).toBeGreaterThan(0);
    await screenshot(page, 'panel-dashboard-desktop');
  });

  let assigned: BookingJson;

  it('books for a rider from Add booking, then assigns a driver who sees the offer at once', async () => {
    const { page } = admin;
    await page.getByTestId('panel-menu-addbookings').click();
    await page.waitForURL(/\/addbookings$/);
    await page.getByTestId('rider-picker-input').fill(riderName.lastName);
    await page.getByTestId('rider-picker-option').first().click();
    await choosePlace(page, 'pickup', 'Fells', 'Fells Point');
    await choosePlace(page, 'drop', 'Patterson', 'Patterson Park');
    await chooseCarType(page, 'Economy');
    await screenshot(page, 'panel-addbooking-desktop');
    await page.getByTestId('book-button').click();
    await page.getByTestId('confirm-booking').click();
    const success = page.getByTestId('booking-success-id');
    await success.waitFor();
    const bookingId = /Booking id ([0-9a-f-]{36})/.exec((await success.textContent()) ?? '')?.[1] ?? '';
    expect(bookingId).not.toBe('');
    assigned = (await call('GET', `/bookings/${bookingId}`, adminToken)) as BookingJson;
    expect(assigned.customer_name).toBe(`${riderName.firstName} ${riderName.lastName}`);
    expect(assigned.status).toBe('NEW');

    await page.getByTestId('go-to-booking').click();
    await page.waitForURL(/\/bookings$/);
    const row = await showRow(page, assigned.reference);
    await row.getByTestId('action-assign').click();
    const dialog = page.getByTestId('assign-dialog');
    await dialog.waitFor();
    const driverId = ((await call('GET', '/auth/me', await apiSignIn('driver10@demo.wayfare'))) as { user: { id: string } }).user.id;
    await dialog.locator(`[data-testid="assign-candidate"][data-driver-id="${driverId}"]`).click();
    await screenshot(page, 'panel-assign-desktop');
    await dialog.getByTestId('assign-confirm').click();
    await expect.poll(() => page.getByTestId('notification').allTextContents()).toContain('Driver assigned successfully and notified');
    // The driver's console shows the offer without a reload.
    await waitForAttribute(driver.page, 'offer-card', 'data-booking-id', assigned.id, LIVE);
    // And the row shows the change pushed by the socket when the driver accepts.
    await driver.page.getByTestId('offer-accept').click();
    await expect.poll(async () => row.getByTestId('status-chip').getAttribute('data-status'), POLL).toBe('ACCEPTED');
    await screenshot(page, 'panel-bookings-desktop');
  });

  it('cancels a booking with a reason from the grid', async () => {
    const { page } = admin;
    const booking = (await call('POST', '/bookings', adminToken, { ...trip, bookLater: false, customer: riderId })) as BookingJson;
    const row = await showRow(page, booking.reference);
    await row.getByTestId('action-cancel').click();
    const dialog = page.getByTestId('cancel-dialog');
    await dialog.getByLabel('Changed my plans').click();
    await dialog.getByTestId('cancel-confirm').click();
    await expect.poll(async () => row.getByTestId('status-chip').getAttribute('data-status'), POLL).toBe('CANCELLED');
    const stored = (await call('GET', `/bookings/${booking.id}`, adminToken)) as BookingJson & { reason: string; cancelledBy: string };
    expect([stored.reason, stored.cancelledBy]).toEqual(['Changed my plans', 'admin']);
  });

  it('exports the searched bookings as an XLSX file holding the rows of the grid', async () => {
    const { page } = admin;
    await page.getByTestId('bookings-grid-search').fill(riderName.lastName);
    await expect.poll(async () => page.locator('[data-testid="bookings-grid"] [role="row"][data-id]').count(), POLL).toBe(2);
    const references = await page.locator('[data-testid="bookings-grid"] [role="row"][data-id] [data-field="reference"]').allTextContents();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('bookings-grid-export-xlsx').click()]);
    const rows = readXlsx(readFileSync(await download.path()));
    const header = rows[0];
    const at = header.indexOf('reference');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(rows.slice(1).map((cells) => cells[at]).sort()).toEqual([...references].sort());
    expect(header).toEqual(expect.arrayContaining(['customer_name', 'status', 'trip_cost', 'driver_share', 'convenience_fees']));
  });

  it('shows a fleet admin only the bookings of their fleet', async () => {
    // A second booking, taken by driver13, who drives for no fleet.
    const outsider = await apiSignIn('driver13@demo.wayfare');
    await call('POST', '/drivers/me/status', outsider, { driverActiveStatus: true });
    await call('POST', '/drivers/me/location', outsider, { lat: 39.2836, lng: -76.5901 });
    const other = (await call('POST', '/bookings', adminToken, { ...trip, bookLater: false, customer: riderId })) as BookingJson;
    const outsiderId = ((await call('GET', '/auth/me', outsider)) as { user: { id: string } }).user.id;
    await call('POST', `/bookings/${other.id}/assign`, adminToken, { driver: outsiderId });
    await call('POST', `/bookings/${other.id}/accept`, outsider);
    await call('POST', '/drivers/me/status', outsider, { driverActiveStatus: false }).catch(() => undefined);

    const fleet = await newPerson(browser, 'fleet');
    await signIn(fleet, 'fleet@demo.wayfare');
    await fleet.page.waitForURL(/\/dashboard$/);
    await fleet.page.getByTestId('panel-menu-bookings').click();
    await fleet.page.getByTestId('bookings-grid-search').fill(riderName.lastName);
    await fleet.page.locator('[data-testid="bookings-grid"] [role="row"]', { hasText: assigned.reference }).first().waitFor(WAIT);
    expect(await fleet.page.locator('[data-testid="bookings-grid"] [role="row"]', { hasText: other.reference }).count()).toBe(0);
    // Fleet admins have no row actions, and their menu is theirs.
    expect(await fleet.page.getByTestId('action-cancel').count()).toBe(0);
    expect(await fleet.page.getByTestId('panel-menu-riders').count()).toBe(0);
    await screenshot(fleet.page, 'panel-bookings-fleet-desktop');
    expectNoErrors(fleet);
    await fleet.context.close();
  });

  it('in demo mode offers no export and no cancelling', async () => {
    const demo = await newPerson(browser, 'demo-admin', { server: demoModeUrl() });
    await signIn(demo, 'admin@demo.wayfare');
    const token = await apiSignIn('admin@demo.wayfare', demoModeUrl());
    const rider = (await call('GET', '/users?role=rider&limit=1', token, undefined, demoModeUrl())) as { items: { id: string }[] };
    const booking = (await call('POST', '/bookings', token, { ...trip, bookLater: false, customer: rider.items[0].id }, demoModeUrl())) as BookingJson;
    await demo.page.getByTestId('panel-menu-bookings').click();
    const row = await showRow(demo.page, booking.reference);
    expect(await row.getByTestId('action-cancel').isDisabled()).toBe(true);
    expect(await demo.page.getByTestId('bookings-grid-export-csv').count()).toBe(0);
    expect(await demo.page.getByTestId('bookings-grid-export-xlsx').count()).toBe(0);
    expectNoErrors(demo);
    await demo.context.close();
  });

  it('fits a phone and speaks Arabic right to left', async () => {
    for (const locale of ['en', 'ar'] as const) {
      const person = await newPerson(browser, `phone-${locale}`, { viewport: PHONE, locale: locale === 'ar' ? 'ar' : 'en-US' });
      await signIn(person, 'admin@demo.wayfare');
      if (locale === 'ar') {
        await person.page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
        await person.page.reload();
        await expect.poll(() => person.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
      }
      await person.page.waitForURL(/\/dashboard$/);
      await person.page.getByTestId('earning-today-amount').waitFor();
      await screenshot(person.page, `panel-dashboard-phone-${locale}`);
      await person.page.getByTestId('panel-menu-open').click();
      await screenshot(person.page, `panel-menu-phone-${locale}`);
      await person.page.getByTestId('panel-menu-bookings').click();
      await person.page.locator('[data-testid="bookings-grid"] [role="row"][data-id]').first().waitFor(WAIT);
      await screenshot(person.page, `panel-bookings-phone-${locale}`);
      await person.page.goto('/addbookings');
      await person.page.getByTestId('rider-picker-input').waitFor();
      await screenshot(person.page, `panel-addbooking-phone-${locale}`);
      if (locale === 'ar') {
        const desktop = await newPerson(browser, 'desktop-ar', { locale: 'ar' });
        await signIn(desktop, 'admin@demo.wayfare');
        await desktop.page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
        await desktop.page.goto('/bookings');
        await desktop.page.locator('[data-testid="bookings-grid"] [role="row"][data-id]').first().waitFor(WAIT);
        await screenshot(desktop.page, 'panel-bookings-desktop-ar');
        await desktop.page.goto('/dashboard');
        await desktop.page.getByTestId('earning-today-amount').waitFor();
        await screenshot(desktop.page, 'panel-dashboard-desktop-ar');
        expectNoErrors(desktop);
        await desktop.context.close();
      }
      expectNoErrors(person);
      await person.context.close();
    }
  });

  it('left no error in the consoles', () => {
    expectNoErrors(admin, driver);
  });
});
