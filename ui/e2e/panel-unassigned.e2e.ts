// Issue #34, the dashboard and console side of unassigned bookings: the
// dashboard never asks for the viewer's position, counts the bookings nobody
// has taken ("Unassigned bookings: N", kept current by the socket) and leads
// to the bookings screen; the live console lists them tinted with the minutes
// waited, rings their pickups on the map, and frames the one chosen.
//
// Its bookings are an admin's, for a rider of its own, with no driver online
// (the demo's drivers start offline): they stay NEW, and are cancelled before
// the file ends.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUnassigned } from '../src/lib/booking-state';
import type { Booking } from '../src/types/api';
import { apiSignIn, call } from './support/api';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors } from './support/flows';

const DESKTOP = { width: 1280, height: 800 };
const POLL = { timeout: 20_000 };
const DOCS_SCREENSHOTS = resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots');
const stamp = Date.now().toString(36);

const TRIPS = [
  { pickup: { lat: 39.2825, lng: -76.5927, add: 'Fells Point, Baltimore' }, drop: { lat: 39.2905, lng: -76.5794, add: 'Patterson Park, Baltimore' } },
  { pickup: { lat: 39.2966, lng: -76.5929, add: 'Johns Hopkins Hospital, Baltimore' }, drop: { lat: 39.2857, lng: -76.6131, add: 'Inner Harbor, Baltimore' } },
];

/** A screenshot committed with the docs: the whole page, the map below the cards included. */
async function docsScreenshot(page: Page, name: string) {
  mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
  await page.waitForTimeout(700);
  await page
    .waitForFunction(() => Array.from(document.querySelectorAll('[data-renderer="maplibre"]')).every((map) => map.getAttribute('data-map-idle') === 'true'), undefined, {
      timeout: 20_000,
    })
    .catch(() => console.warn(`screenshot ${name}: a map was still loading after 20 s`));
  await page.screenshot({ path: resolve(DOCS_SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Counts the page's calls for the browser's position (it must make none). */
async function watchGeolocation(person: Person) {
  await person.context.addInitScript(() => {
    const calls = { count: 0 };
    (window as unknown as { geolocationCalls: typeof calls }).geolocationCalls = calls;
    const geolocation = navigator.geolocation;
    if (!geolocation) return;
    for (const name of ['getCurrentPosition', 'watchPosition'] as const) {
      const original = geolocation[name].bind(geolocation) as (...args: unknown[]) => unknown;
      (geolocation as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        calls.count++;
        return original(...args);
      };
    }
  });
}

function geolocationCalls(page: Page) {
  return page.evaluate(() => (window as unknown as { geolocationCalls?: { count: number } }).geolocationCalls?.count ?? -1);
}

async function cardCount(page: Page) {
  const value = await page.getByTestId('unassigned-card').getAttribute('data-count');
  return value === null || value === '' ? Number.NaN : Number(value);
}

describe('unassigned bookings on the dashboard and the live console', () => {
  let browser: Browser;
  let admin: Person;
  let adminToken = '';
  let riderId = '';
  const made: Booking[] = [];

  /** The unassigned bookings the server holds now, by the UI's own rule. */
  async function unassignedOnServer() {
    const active = (await call('GET', '/dispatch/active', adminToken)) as { items: Booking[] };
    return active.items.filter((booking) => isUnassigned(booking, Date.now())).length;
  }

  async function book(index: number) {
    const booking = (await call('POST', '/bookings', adminToken, { ...TRIPS[index], carType: 'Comfort', bookLater: false, customer: riderId })) as Booking;
    made.push(booking);
    expect(booking.status).toBe('NEW');
    return booking;
  }

  beforeAll(async () => {
    browser = await launchBrowser();
    adminToken = await apiSignIn('admin@demo.wayfare');
    const rider = (await call('POST', '/users', adminToken, {
      usertype: 'rider',
      firstName: 'Waiting',
      lastName: `Rider ${stamp}`,
      email: `unassigned-rider-${stamp}@example.com`,
      mobile: `+1410${String(Date.now()).slice(-7)}`,
    })) as { id: string };
    riderId = rider.id;
    admin = await newPerson(browser, 'admin-unassigned', { viewport: DESKTOP });
    await watchGeolocation(admin);
    await signIn(admin, 'admin@demo.wayfare');
  });

  afterAll(async () => {
    // Nothing of this file stays open for the files after it.
    for (const booking of made) {
      await call('POST', `/bookings/${booking.id}/cancel`, adminToken, { reason: 'Test over' }).catch(() => undefined);
    }
    await browser?.close();
  });

  it('counts them on the dashboard without asking where the viewer is, follows the socket, and leads to the bookings screen', async () => {
    const { page } = admin;
    await page.waitForURL(/\/dashboard$/);
    await expect.poll(() => cardCount(page), POLL).toBe(await unassignedOnServer());
    const before = await cardCount(page);

    await book(0);
    await expect.poll(() => cardCount(page), POLL).toBe(before + 1);
    await book(1);
    await expect.poll(() => cardCount(page), POLL).toBe(before + 2);
    expect(await page.getByTestId('unassigned-count').textContent()).toBe(`Unassigned bookings: ${before + 2}`);
    // Their pickups are on the map, which is framed on them.
    await expect.poll(() => page.getByTestId('map-marker-pickup').count(), POLL).toBeGreaterThanOrEqual(2);
    await docsScreenshot(page, 'dashboard-unassigned');

    expect(await geolocationCalls(page)).toBe(0);
    expect(await page.getByTestId('allow-location').count()).toBe(0);

    // The grid opens already filtered to the unassigned bookings.
    await page.getByTestId('unassigned-link').click();
    await page.waitForURL(/\/bookings\?status=unassigned$/);
    expectNoErrors(admin);
  });

  it('lists them tinted in the live console with the minutes waited, rings their pickups, and opens the one chosen', async () => {
    const { page } = admin;
    await page.goto('/dispatch');
    const [first, second] = made;
    const row = page.locator(`[data-testid="unassigned-row"][data-booking="${first.id}"]`);
    await row.waitFor(POLL);
    expect(await row.getByTestId('unassigned-chip').textContent()).toMatch(/^Unassigned · (\d+ min|<1 min)$/);
    await page.locator(`[data-testid="unassigned-row"][data-booking="${second.id}"]`).waitFor(POLL);
    // The oldest first.
    const order = await page.getByTestId('unassigned-row').evaluateAll((rows) => rows.map((element) => element.getAttribute('data-booking')));
    expect(order.indexOf(first.id)).toBeLessThan(order.indexOf(second.id));
    await expect.poll(async () => Number(await page.getByTestId('dispatch-map').getAttribute('data-unassigned-pickups')), POLL).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'dispatch-unassigned-list-desktop');
    await row.click();
    await page.locator(`[data-testid="booking-panel"][data-booking="${first.id}"]`).waitFor(POLL);
    await screenshot(page, 'dispatch-unassigned-desktop');
    expect(await geolocationCalls(page)).toBe(0);
    expectNoErrors(admin);
  });

  it('reads right to left in Arabic on a phone, the console\'s list in its own tab', async () => {
    const phone = await newPerson(browser, 'admin-unassigned-ar', { viewport: { width: 390, height: 844 }, locale: 'ar' });
    await signIn(phone, 'admin@demo.wayfare');
    const { page } = phone;
    await page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await page.goto('/dashboard');
    await page.waitForFunction(() => document.documentElement.dir === 'rtl');
    await expect.poll(async () => (await page.getByTestId('unassigned-count').textContent()) ?? '', POLL).toMatch(/^حجوزات بلا سائق: \d+$/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(1);
    await screenshot(page, 'dashboard-unassigned-phone-ar');
    await page.goto('/dispatch');
    await page.getByTestId('dispatch-tab-unassigned').click();
    await page.locator(`[data-testid="unassigned-row"][data-booking="${made[0].id}"]`).waitFor(POLL);
    await screenshot(page, 'dispatch-unassigned-phone-ar');
    expectNoErrors(phone);
    await phone.context.close();
  });

  it('counts one fewer on the dashboard once a booking is cancelled', async () => {
    const { page } = admin;
    await page.goto('/dashboard');
    await expect.poll(() => cardCount(page), POLL).toBe(await unassignedOnServer());
    const shown = await cardCount(page);
    const booking = made.pop()!;
    await call('POST', `/bookings/${booking.id}/cancel`, adminToken, { reason: 'Test over' });
    await expect.poll(() => cardCount(page), POLL).toBe(shown - 1);
    expectNoErrors(admin);
  });
});
