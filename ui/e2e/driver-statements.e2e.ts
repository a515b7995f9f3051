// Issue #37: a driver's weekly earnings statements beside their wallet.
// driver18 drives a trip the rider pays in cash (over the API); on the
// driver's page the week shows with its ride, the earnings and what the
// driver owes the platform (the fee of the cash they kept), the statement
// downloads as a PDF, and a second trip the same week updates the list
// while it is open. Screenshots for docs/screenshots: the list on a desktop
// in English and on a phone in Arabic.
//
// driver18 goes online about 13 km from the pickup, past the dispatch
// radius, so the system's own offers never reach it; the admin assigns it.
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { docsScreenshot, launchBrowser, newPerson, signIn, type Person } from './support/browser';
import { expectNoErrors } from './support/flows';

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const POLL = { timeout: 20_000 };
const stamp = Date.now().toString(36).toLowerCase();
const DRIVER = 'driver18@demo.wayfare';

const PICKUP = { lat: 39.2825, lng: -76.5927, add: 'Fells Point, Baltimore' };
const DROP = { lat: 39.2905, lng: -76.5794, add: 'Patterson Park, Baltimore' };
const FAR_AWAY = { lat: 39.4, lng: -76.6 };

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

interface BookingJson {
  id: string;
  status: string;
  otp: number | false | null;
  driver_share: number;
  convenience_fees: number;
  cashPaymentAmount: number;
}

interface StatementWeeks {
  weeks: { week: string; totals: { rides: number; earnings: number; balance: number } }[];
}

/** The amount in a text: "Earnings $12.30" → 12.3 */
function dollars(text: string | null) {
  const match = /(-?)\$(\d+\.\d{2})/.exec(text ?? '');
  if (!match) throw new Error(`no amount in: ${text}`);
  return Number(match[1] + match[2]);
}

describe("a driver's weekly statements", () => {
  let browser: Browser;
  let driver: Person;
  let adminToken = '';
  let driverToken = '';
  let driverId = '';

  /** A trip of a new rider with driver18, paid in cash to the driver. */
  async function cashTrip(number: number) {
    const riderToken = await apiSignIn(`statement.rider${number}.${stamp}@example.com`);
    await call('PATCH', '/users/me', riderToken, { firstName: 'Stella', lastName: `Statement${number}` });
    const me = (await call('GET', '/auth/me', driverToken)) as { user: { carType: string | null } };
    await call('POST', '/drivers/me/status', driverToken, { driverActiveStatus: true, location: FAR_AWAY });
    const booked = (await call('POST', '/bookings', riderToken, { pickup: PICKUP, drop: DROP, carType: me.user.carType, bookLater: false, payment_mode: 'cash' })) as BookingJson;
    await call('POST', `/bookings/${booked.id}/assign`, adminToken, { driver: driverId });
    // Driven for real: near the pickup before accepting, then to the booked drop, where the trip ends.
    await call('POST', '/drivers/me/location', driverToken, { lat: PICKUP.lat, lng: PICKUP.lng });
    await call('POST', `/bookings/${booked.id}/accept`, driverToken, {});
    await call('POST', `/bookings/${booked.id}/arrive`, driverToken, {});
    await call('POST', `/bookings/${booked.id}/start`, driverToken, booked.otp ? { otp: booked.otp } : {});
    await pause(1100);
    await call('POST', '/drivers/me/location', driverToken, { lat: DROP.lat, lng: DROP.lng });
    await call('POST', `/bookings/${booked.id}/reach`, driverToken, {});
    const paid = (await call('POST', `/bookings/${booked.id}/pay`, driverToken, { payment_mode: 'cash' })) as BookingJson;
    expect(paid.status).toBe('PAID');
    await call('POST', '/drivers/me/status', driverToken, { driverActiveStatus: false });
    return paid;
  }

  beforeAll(async () => {
    adminToken = await apiSignIn('admin@demo.wayfare');
    driverToken = await apiSignIn(DRIVER);
    driverId = ((await call('GET', '/auth/me', driverToken)) as { user: { id: string } }).user.id;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    if (driverToken) await call('POST', '/drivers/me/status', driverToken, { driverActiveStatus: false }).catch(() => undefined);
    await browser?.close();
  });

  it('lists the week of a paid trip with its ride, earnings and what the driver owes, and downloads its PDF', async () => {
    // No other browser test drives driver18, and the suite's demo has no history.
    expect(((await call('GET', '/drivers/me/statements', driverToken)) as StatementWeeks).weeks).toEqual([]);
    const trip = await cashTrip(1);
    const { weeks } = (await call('GET', '/drivers/me/statements', driverToken)) as StatementWeeks;
    expect(weeks).toHaveLength(1);
    const week = weeks[0];
    expect(week.totals.rides).toBe(1);
    expect(week.totals.earnings).toBeCloseTo(trip.driver_share, 2);

    driver = await newPerson(browser, 'statements-driver', { viewport: DESKTOP });
    await signIn(driver, DRIVER);
    const { page } = driver;
    await page.goto('/bookings');
    const row = page.getByTestId('statement-week').first();
    await row.waitFor(POLL);
    expect(await row.getAttribute('data-week')).toBe(week.week);
    expect(await row.getByRole('heading').textContent()).toBe(`Week ${Number(week.week.slice(6))}`);
    expect(await row.getByTestId('statement-rides').textContent()).toBe('1 ride');
    expect(dollars(await row.getByTestId('statement-earnings').textContent())).toBe(week.totals.earnings);
    // Paid in cash: the driver kept the fare, and owes the platform its fee when there is one.
    expect(trip.cashPaymentAmount).toBeGreaterThan(0);
    const owed = week.totals.balance;
    const said = owed < 0 ? `You owe the platform $${(-owed).toFixed(2)}` : owed > 0 ? `The platform owes you $${owed.toFixed(2)}` : 'Nothing owed either way';
    expect(await row.getByTestId('statement-balance').textContent()).toBe(said);
    expect(owed).toBeCloseTo(trip.driver_share - trip.cashPaymentAmount, 2);
    await page.getByTestId('weekly-statements').scrollIntoViewIfNeeded();
    await docsScreenshot(page, 'driver-statements');

    const download = page.waitForEvent('download');
    await row.getByTestId('statement-pdf').click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`statement-${week.week}.pdf`);
    expect(readFileSync(await file.path()).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('counts a second trip of the week in the open list, from the wallet event', async () => {
    const { page } = driver;
    const row = page.getByTestId('statement-week').first();
    await cashTrip(2);
    // The server's newest week is the truth: 2 rides, or 1 when the second
    // trip fell after Sunday midnight UTC and opened a new week.
    const { weeks } = (await call('GET', '/drivers/me/statements', driverToken)) as StatementWeeks;
    const rides = weeks[0].totals.rides;
    expect(rides === 2 || (rides === 1 && weeks.length === 2)).toBe(true);
    await expect.poll(() => row.getAttribute('data-week'), POLL).toBe(weeks[0].week);
    await expect.poll(() => row.getByTestId('statement-rides').textContent(), POLL).toBe(rides === 1 ? '1 ride' : '2 rides');
    expectNoErrors(driver);
    await driver.context.close();
  });

  it('fits a phone and speaks Arabic right to left', async () => {
    const arabic = await newPerson(browser, 'statements-driver-ar', { viewport: PHONE, locale: 'ar' });
    await signIn(arabic, DRIVER);
    const { page } = arabic;
    await page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await page.goto('/bookings');
    await page.getByTestId('statement-week').first().waitFor(POLL);
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    expect(await page.getByTestId('weekly-statements').getByRole('heading', { level: 2 }).textContent()).toBe('الكشوف الأسبوعية');
    await page.getByTestId('weekly-statements').scrollIntoViewIfNeeded();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(1);
    await docsScreenshot(page, 'driver-statements-phone-ar');
    expectNoErrors(arabic);
    await arabic.context.close();
  });
});
