// A whole trip with no page reloads: every change one person makes reaches
// the other's screen over the server's Socket.IO events (docs/api.md
// "Socket.IO"): `offer` and `offer_withdrawn` to the drivers, `booking` and
// `tracking` to the rider, `chat` both ways, `wallet` to the driver. Two
// drivers race for the offer; the winner drives the simulated car to the
// pickup and the drop, collects cash, and the rider rates.
// e2e/booking-flow.e2e.ts covers what a rider sees while booking, and paying
// from the wallet.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors, fillBookingForm, rateFiveStars, waitForAttribute } from './support/flows';

const LIVE = { timeoutMs: 15_000 };

describe('live updates over the socket', () => {
  let browser: Browser;
  let rider: Person;
  let driver: Person;
  let rival: Person;
  let bookingId = '';
  let driverBalance = '';
  let adminToken = '';
  let policyBefore: unknown;

  beforeAll(async () => {
    // The race needs two drivers offered one booking at once: `waves` (three
    // a wave). The default, `batch`, offers a booking to one driver; its
    // offers are in e2e/dispatch-console.e2e.ts and e2e/booking-flow.e2e.ts.
    adminToken = await apiSignIn('admin@demo.wayfare');
    policyBefore = ((await call('GET', '/settings', adminToken)) as { dispatchPolicy: unknown }).dispatchPolicy;
    await call('PATCH', '/settings', adminToken, { dispatchPolicy: 'waves' });
    browser = await launchBrowser();
    rider = await newPerson(browser, 'rider');
    driver = await newPerson(browser, 'driver');
    rival = await newPerson(browser, 'rival');
    await signIn(rider, 'rider5@demo.wayfare');
    for (const [person, email] of [
      [driver, 'driver4@demo.wayfare'],
      [rival, 'driver7@demo.wayfare'],
    ] as const) {
      await signIn(person, email);
      // These browsers have no position to give: the demo city's simulated drive moves the car.
      await person.page.getByTestId('share-simulate').click();
      await person.page.getByTestId('driver-online-toggle').click();
      await waitForAttribute(person.page, 'driver-console', 'data-online', 'true');
    }
    driverBalance = (await driver.page.getByTestId('wallet-balance').textContent()) ?? '';
  });

  afterAll(async () => {
    await browser?.close();
    if (adminToken) await call('PATCH', '/settings', adminToken, { dispatchPolicy: policyBefore });
  });

  it('connects the socket with the session cookie', async () => {
    await waitForAttribute(driver.page, 'socket-status', 'data-state', 'connected', LIVE);
  });

  it('shows the offer to the drivers without a reload, with its countdown', async () => {
    await fillBookingForm(rider.page, { pickup: ['Fells', 'Fells Point'], drop: ['Patterson', 'Patterson Park'], carType: 'Economy' });
    await rider.page.getByTestId('book-button').click();
    await rider.page.getByTestId('confirm-booking').click();
    await rider.page.getByTestId('go-to-booking').click();
    await rider.page.waitForURL(/\/bookings\?trip=/);
    bookingId = new URL(rider.page.url()).searchParams.get('trip') ?? '';
    await waitForAttribute(driver.page, 'offer-card', 'data-booking-id', bookingId, LIVE);
    await waitForAttribute(rival.page, 'offer-card', 'data-booking-id', bookingId, LIVE);
    expect(await driver.page.getByTestId('offer-countdown').textContent()).toMatch(/^\d+ seconds?$/);
    expect(await driver.page.getByTestId('offer-away').textContent()).toMatch(/^ · \d+(\.\d)? km away$/);
    await screenshot(driver.page, '06-driver-offer');
  });

  it('withdraws the offer from the driver who lost the race, saying another driver took it', async () => {
    await driver.page.getByTestId('offer-accept').click();
    await waitForAttribute(driver.page, 'driver-trip', 'data-status', 'ACCEPTED');
    await rival.page.getByTestId('offer-card').waitFor({ state: 'detached', timeout: LIVE.timeoutMs });
    await rival.page.getByText('Another driver took that booking.').waitFor({ timeout: LIVE.timeoutMs });
    await screenshot(driver.page, '07-driver-accepted');
  });

  it('shows the rider the driver assigned and the car moving, live', async () => {
    await waitForAttribute(rider.page, 'trip-view', 'data-status', 'ACCEPTED', LIVE);
    expect(await rider.page.getByTestId('driver-name').textContent()).toBe('Driver 4');
    const first = await waitForAttribute(rider.page, 'map-marker-car', 'data-lat', /\d/, LIVE);
    await waitForAttribute(rider.page, 'map-marker-car', 'data-lat', new RegExp(`^(?!${first.replace('.', '\\.')}$)`), LIVE);
    await screenshot(rider.page, '08-rider-driver-assigned');
  });

  it('carries chat messages both ways as they are sent, with the date and time of spec §9', async () => {
    await rider.page.getByTestId('chat-input').fill('I am by the Broadway pier.');
    await rider.page.getByTestId('chat-send').click();
    await rider.page.getByTestId('chat-message').filter({ hasText: 'Broadway pier' }).waitFor();
    expect(await rider.page.getByTestId('chat-time').first().textContent()).toMatch(/^\d{2}:\d{2}$/);
    expect(await rider.page.getByTestId('chat-date').first().textContent()).toMatch(/^\d{2}:\d{2}:\d{4}$/);
    await driver.page.getByTestId('chat-message').filter({ hasText: 'Broadway pier' }).waitFor({ timeout: LIVE.timeoutMs });
    await driver.page.getByTestId('chat-input').fill('Coming, two minutes.');
    await driver.page.getByTestId('chat-send').click();
    await rider.page.getByTestId('chat-message').filter({ hasText: 'two minutes' }).waitFor({ timeout: LIVE.timeoutMs });
    await screenshot(driver.page, '09-driver-chat');
    await screenshot(rider.page, '10-rider-chat');
  });

  it('shows the rider each stage of the trip as the driver runs it', async () => {
    const otp = (await rider.page.getByTestId('trip-otp').textContent()) ?? '';
    await driver.page.getByTestId('trip-arrive').click();
    await waitForAttribute(rider.page, 'trip-view', 'data-status', 'ARRIVED', LIVE);
    await driver.page.getByTestId('trip-otp-input').fill(otp);
    await driver.page.getByTestId('trip-start').click();
    await waitForAttribute(rider.page, 'trip-view', 'data-status', 'STARTED', LIVE);
    await screenshot(driver.page, '11-driver-started');
    // The simulated car drives from the pickup to the drop in about 25 seconds.
    await waitForAttribute(driver.page, 'simulation-state', 'data-leg', 'to-drop');
    await waitForAttribute(driver.page, 'simulation-state', 'data-arrived', 'true', { timeoutMs: 60_000 });
    await driver.page.getByTestId('trip-reach').click();
    await waitForAttribute(rider.page, 'trip-view', 'data-status', 'REACHED', LIVE);
    await screenshot(driver.page, '12-driver-reached');
    await driver.page.getByTestId('trip-collect-cash').click();
    await waitForAttribute(rider.page, 'trip-view', 'data-status', 'PAID', LIVE);
    await rider.page.getByTestId('rating-panel').waitFor();
    await screenshot(rider.page, '13-rider-rate');
  });

  it('shows the driver COMPLETE once the rider rates, and the new wallet balance', async () => {
    await rateFiveStars(rider.page);
    await rider.page.getByTestId('rate-submit').click();
    await waitForAttribute(rider.page, 'trip-view', 'data-status', 'COMPLETE');
    await rider.page.getByTestId('trip-complete').waitFor();
    await screenshot(rider.page, '14-rider-complete');
    await waitForAttribute(driver.page, 'booking-row', 'data-status', 'COMPLETE', LIVE);
    // The driver's share in, the cash collected out: the balance moved.
    await driver.page.getByTestId('wallet-history').waitFor({ timeout: LIVE.timeoutMs });
    await driver.page.waitForFunction(
      (before) => document.querySelector('[data-testid="wallet-balance"]')?.textContent !== before,
      driverBalance,
      { timeout: LIVE.timeoutMs },
    );
    await screenshot(driver.page, '15-driver-complete-wallet');
  });

  it('no errors reached any browser console', () => {
    expectNoErrors(rider, driver, rival);
  });
});
