// Issue 39, idle repositioning: a free driver is shown, on a map beside
// where the phone is, the nearby area where riders are booking and no driver
// is free, with how many riders an hour are expected there; only a hint.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { baseUrl, docsScreenshot, launchBrowser, newPerson, signIn, type Person } from './support/browser';
import { expectNoErrors, waitForAttribute } from './support/flows';

const DRIVER = 'driver19@demo.wayfare';
const RIDERS = [11, 12, 13, 14, 15, 16].map((number) => `rider${number}@demo.wayfare`);
const PHONE = { width: 390, height: 844 };
// The Inner Harbor: about 1.5 km west of where the riders book.
const HARBOR = { latitude: 39.2856, longitude: -76.6105 };
const FELLS_POINT = { lat: 39.2825, lng: -76.5927, add: 'Fells Point, Baltimore' };
const CANTON = { lat: 39.2804, lng: -76.575, add: 'Canton, Baltimore' };

describe('a free driver is shown where riders are expected', () => {
  let browser: Browser;
  let driver: Person;

  beforeAll(async () => {
    browser = await launchBrowser();
    driver = await newPerson(browser, 'driver', { viewport: PHONE });
    await driver.context.grantPermissions(['geolocation'], { origin: baseUrl() });
    await driver.context.setGeolocation({ ...HARBOR, accuracy: 8 });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('shows the busy area near a free driver, in English and Arabic, on a phone and a desktop', async () => {
    await signIn(driver, DRIVER);
    const page = driver.page;
    await waitForAttribute(page, 'driver-console', 'data-fix', 'ok');
    await page.getByTestId('driver-online-toggle').click();
    await waitForAttribute(page, 'driver-console', 'data-online', 'true');
    expect(await page.getByTestId('suggested-area').count()).toBe(0);

    // Riders book from Fells Point in a car type this driver does not drive
    // (no offer reaches them: the hint shows while no offer waits).
    const me = (await page.evaluate(() => fetch('/api/v1/auth/me').then((response) => response.json()))) as { user: { carType: string } };
    const carTypes = (await call('GET', '/cartypes', null)) as { name: string }[];
    const other = carTypes.map((carType) => carType.name).find((name) => name !== me.user.carType);
    expect(other).toBeTruthy();
    for (const rider of RIDERS) {
      const token = await apiSignIn(rider);
      await call('POST', '/bookings', token, { pickup: FELLS_POINT, drop: CANTON, carType: other, bookLater: false });
    }

    await page.reload();
    const hint = page.getByTestId('suggested-area');
    await hint.waitFor({ timeout: 30_000 });
    const text = (await page.getByTestId('suggested-area-text').textContent()) ?? '';
    expect(text).toMatch(/About \d+ riders an hour are expected in the shaded area, 1\.\d km away/);
    expect(text).toContain('Going there is up to you.');
    // The map loads after the hint: its attribution with it.
    await expect.poll(async () => (await hint.textContent()) ?? '', { timeout: 20_000 }).toContain('© OpenStreetMap contributors');
    await hint.scrollIntoViewIfNeeded();
    await docsScreenshot(page, 'driver-area-phone');

    await page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await page.reload();
    await page.getByTestId('suggested-area').waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    expect(await page.getByTestId('suggested-area-text').textContent()).toContain('المنطقة المظللة');
    await page.getByTestId('suggested-area').scrollIntoViewIfNeeded();
    await docsScreenshot(page, 'driver-area-phone-ar');

    await page.setViewportSize({ width: 1366, height: 900 });
    await page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'en'));
    await page.reload();
    await page.getByTestId('suggested-area').waitFor({ timeout: 30_000 });
    await page.getByTestId('suggested-area').scrollIntoViewIfNeeded();
    await docsScreenshot(page, 'driver-area-desktop');
    expectNoErrors(driver);
  });
});
