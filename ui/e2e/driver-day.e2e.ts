// Issue 33, the driver's real day: on a phone, with the browser's own
// position (Playwright's geolocation), a driver goes online by the switch
// alone and the admin's map shows them where the phone is, then follows the
// phone as it moves; after Accept the next stage's button is on screen
// without scrolling; a reload mid-trip keeps the real position; 10 s with no
// network, then back, leaves the trip's stored track whole and in order.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, apiSignIn } from './support/api';
import { baseUrl, launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors, waitForAttribute } from './support/flows';

const DRIVER = 'driver8@demo.wayfare';
const RIDER = 'rider3@demo.wayfare';
const PHONE = { width: 390, height: 844 };
// Near Fells Point, where the rider waits.
const START = { latitude: 39.28412, longitude: -76.59215 };
const PICKUP = { lat: 39.2833, lng: -76.5931, add: 'Fells Point, Baltimore' };
const DROP = { lat: 39.2906, lng: -76.5781, add: 'Patterson Park, Baltimore' };

interface TrackingPoint {
  at: number;
  status: string;
  lat: number;
  lng: number;
}

async function markerAt(page: Page, lat: number, lng: number, timeoutMs = 5_000) {
  await page
    .locator(`[data-testid^="map-marker-car"][data-lat="${lat.toFixed(6)}"][data-lng="${lng.toFixed(6)}"]`)
    .first()
    .waitFor({ state: 'attached', timeout: timeoutMs });
}

/** The car type of whoever is signed in on the page (demo drivers drive different ones). */
async function carTypeOf(page: Page): Promise<string> {
  const me = (await page.evaluate(() => fetch('/api/v1/auth/me').then((response) => response.json()))) as { user: { carType: string } };
  return me.user.carType;
}

/** Metres between two points (flat earth: a few hundred metres). */
function metres(a: { lat: number; lng: number }, b: { lat: number; lng: number }) {
  const dy = (a.lat - b.lat) * 111_195;
  const dx = (a.lng - b.lng) * 111_195 * Math.cos((a.lat * Math.PI) / 180);
  return Math.hypot(dx, dy);
}

describe("a driver's real day on a phone", () => {
  let browser: Browser;
  let driver: Person;
  let admin: Person;
  let riderToken = '';
  let bookingId = '';

  beforeAll(async () => {
    browser = await launchBrowser();
    driver = await newPerson(browser, 'driver', { viewport: PHONE });
    await driver.context.grantPermissions(['geolocation'], { origin: baseUrl() });
    await driver.context.setGeolocation({ ...START, accuracy: 8 });
    admin = await newPerson(browser, 'admin');
    riderToken = await apiSignIn(RIDER);
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('goes online by the switch alone, and the admin sees the phone where it is within 5 s', async () => {
    await signIn(admin, 'admin@demo.wayfare');
    await admin.page.goto('/dashboard');
    await admin.page.getByTestId('live-drivers').waitFor();
    await signIn(driver, DRIVER);
    const page = driver.page;
    await waitForAttribute(page, 'driver-console', 'data-fix', 'ok');
    expect(await page.getByTestId('position-ok').textContent()).toBe('GPS ±8 m');
    const started = Date.now();
    await page.getByTestId('driver-online-toggle').click();
    await waitForAttribute(page, 'driver-console', 'data-online', 'true');
    await markerAt(admin.page, START.latitude, START.longitude);
    expect(Date.now() - started).toBeLessThan(5_000);
    await screenshot(page, 'driver-online-phone');
  });

  it("moving the phone moves the driver on the admin's map", async () => {
    const moved = { latitude: 39.28391, longitude: -76.59302 };
    await driver.context.setGeolocation({ ...moved, accuracy: 6 });
    await markerAt(admin.page, moved.latitude, moved.longitude);
  });

  it('after Accept the next stage is on screen without scrolling', async () => {
    const page = driver.page;
    const booking = (await call('POST', '/bookings', riderToken, { pickup: PICKUP, drop: DROP, carType: await carTypeOf(page), bookLater: false })) as { id: string };
    bookingId = booking.id;
    await waitForAttribute(page, 'offer-card', 'data-booking-id', bookingId, { timeoutMs: 60_000 });
    await page.getByTestId('offer-accept').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'ACCEPTED');
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    const button = await page.getByTestId('trip-arrive').boundingBox();
    expect(button).not.toBeNull();
    expect(button!.y + button!.height).toBeLessThanOrEqual(PHONE.height);
    expect(button!.height).toBeGreaterThanOrEqual(48);
    expect(await page.getByTestId('driver-next-address').textContent()).toBe(PICKUP.add);
    expect(await page.getByTestId('navigate-google').getAttribute('href')).toContain(`destination=${PICKUP.lat.toFixed(6)},${PICKUP.lng.toFixed(6)}`);
    // The offer's toast went with the offer.
    expect(await page.getByTestId('notification').count()).toBe(0);
    await screenshot(page, 'driver-trip-phone');
  });

  it('a reload mid-trip keeps the real position', async () => {
    const page = driver.page;
    await page.getByTestId('trip-arrive').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'ARRIVED');
    const { otp } = (await call('GET', `/bookings/${bookingId}`, riderToken)) as { otp: number };
    await page.getByTestId('trip-otp-input').fill(String(otp));
    await page.getByTestId('trip-start').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'STARTED');
    const here = { latitude: 39.28452, longitude: -76.59048 };
    await driver.context.setGeolocation({ ...here, accuracy: 5 });
    await markerAt(admin.page, here.latitude, here.longitude);
    await page.reload();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'STARTED');
    await waitForAttribute(page, 'driver-console', 'data-fix', 'ok');
    expect(await page.getByTestId('share-simulate').getAttribute('aria-pressed')).toBe('false');
    expect(await page.getByTestId('driver-position').textContent()).toBe(`${here.latitude.toFixed(5)}, ${here.longitude.toFixed(5)}`);
    // Still where the phone is a few seconds later: nothing simulated moved it.
    await page.waitForTimeout(3_000);
    await markerAt(admin.page, here.latitude, here.longitude);
  });

  it('10 s without a network, then back: the stored track holds every point, in order', async () => {
    const page = driver.page;
    await driver.context.setOffline(true);
    const offlineFrom = Date.now();
    // About 120 m a second eastwards along Eastern Avenue.
    const driven: { lat: number; lng: number }[] = [];
    for (let step = 1; step <= 10; step++) {
      const point = { latitude: 39.28452, longitude: -76.59048 + step * 0.0014 };
      driven.push({ lat: point.latitude, lng: point.longitude });
      await driver.context.setGeolocation({ ...point, accuracy: 5 });
      await page.waitForTimeout(1_000);
    }
    expect(Number(await page.getByTestId('unsent-positions').getAttribute('data-count'))).toBeGreaterThanOrEqual(8);
    const offlineTo = Date.now();
    await driver.context.setOffline(false);
    await page.getByTestId('unsent-positions').waitFor({ state: 'detached', timeout: 20_000 });
    const { points } = (await call('GET', `/bookings/${bookingId}/tracking`, riderToken)) as { points: TrackingPoint[] };
    const times = points.map((point) => point.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const whileOffline = points.filter((point) => point.status === 'STARTED' && point.at >= offlineFrom && point.at <= offlineTo);
    expect(whileOffline.length).toBeGreaterThanOrEqual(8);
    for (const point of whileOffline) expect(driven.some((spot) => metres(spot, point) < 1)).toBe(true);
    // No jump: each step of the track is a step the car drove.
    const started = points.filter((point) => point.status === 'STARTED');
    for (let index = 1; index < started.length; index++) expect(metres(started[index - 1], started[index])).toBeLessThan(400);
  });

  it('the driver finishes the trip', async () => {
    const page = driver.page;
    await page.getByTestId('trip-reach').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'REACHED');
    await page.getByTestId('trip-collect-cash').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'PAID');
    // The rider rates it: nothing of this file stays open for the others.
    await call('POST', `/bookings/${bookingId}/rate`, riderToken, { rating: 5 });
    await page.getByTestId('driver-online-toggle').click();
    await waitForAttribute(page, 'driver-console', 'data-online', 'false');
  });

  it('the console on a phone in Arabic, right to left', async () => {
    const arabic = await newPerson(browser, 'driver-ar', { viewport: PHONE, locale: 'ar' });
    await arabic.context.grantPermissions(['geolocation'], { origin: baseUrl() });
    await arabic.context.setGeolocation({ ...START, accuracy: 8 });
    await signIn(arabic, 'driver9@demo.wayfare');
    await arabic.page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await arabic.page.reload();
    await expect.poll(() => arabic.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await waitForAttribute(arabic.page, 'driver-console', 'data-fix', 'ok');
    await arabic.page.getByTestId('driver-online-toggle').click();
    await waitForAttribute(arabic.page, 'driver-console', 'data-online', 'true');
    await screenshot(arabic.page, 'driver-online-phone-ar');
    const booking = (await call('POST', '/bookings', riderToken, { pickup: PICKUP, drop: DROP, carType: await carTypeOf(arabic.page), bookLater: false })) as { id: string };
    await waitForAttribute(arabic.page, 'offer-card', 'data-booking-id', booking.id, { timeoutMs: 60_000 });
    await arabic.page.getByTestId('offer-accept').click();
    await waitForAttribute(arabic.page, 'driver-trip', 'data-status', 'ACCEPTED');
    const button = await arabic.page.getByTestId('trip-arrive').boundingBox();
    expect(button!.y + button!.height).toBeLessThanOrEqual(PHONE.height);
    await screenshot(arabic.page, 'driver-trip-phone-ar');
    await call('POST', `/bookings/${booking.id}/cancel`, riderToken, { reason: 'Changed my plans' });
    await waitForAttribute(arabic.page, 'driver-console', 'data-online', 'true');
    await arabic.page.getByTestId('driver-trip').waitFor({ state: 'detached' });
    await arabic.page.getByTestId('driver-online-toggle').click();
    await waitForAttribute(arabic.page, 'driver-console', 'data-online', 'false');
    expectNoErrors(arabic);
    await arabic.context.close();
  });

  it('no errors reached either browser console', async () => {
    // The requests that failed while the network was off are the test's doing.
    const offline = (error: string) => /ERR_INTERNET_DISCONNECTED|Failed to fetch|net::ERR/.test(error);
    expectNoErrors({ ...driver, errors: driver.errors.filter((error) => !offline(error)) }, admin);
  });
});
