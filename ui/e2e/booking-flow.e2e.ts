// A rider books, a driver takes the trip and runs it to the end, both chat,
// the driver collects cash and the rider rates. Until the server emits its
// Socket.IO events, each person reloads the page where a live update would
// show the other's change; e2e/pending/live-updates.e2e.ts is the same flow
// with no reloads.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors, fillBookingForm, rateFiveStars, waitForAttribute } from './support/flows';

describe('a rider and a driver', () => {
  let browser: Browser;
  let rider: Person;
  let driver: Person;
  let bookingId = '';

  beforeAll(async () => {
    browser = await launchBrowser();
    rider = await newPerson(browser, 'rider');
    driver = await newPerson(browser, 'driver');
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('the rider signs in through the dev outbox and lands on the booking form', async () => {
    await signIn(rider, 'rider1@demo.wayfare');
    expect(new URL(rider.page.url()).pathname).toBe('/');
    await rider.page.getByTestId('booking-form').waitFor();
    await screenshot(rider.page, '01-landing-signed-in');
  });

  it('the driver signs in, lands on the console and goes online', async () => {
    await signIn(driver, 'driver1@demo.wayfare');
    expect(new URL(driver.page.url()).pathname).toBe('/bookings');
    await driver.page.getByTestId('share-simulate').click();
    await driver.page.getByTestId('driver-online-toggle').click();
    await waitForAttribute(driver.page, 'driver-console', 'data-online', 'true');
    await driver.page.getByTestId('no-offers').waitFor();
    await screenshot(driver.page, '02-driver-online');
  });

  it('the rider books a ride and sees the estimate, then the trip', async () => {
    const page = rider.page;
    await fillBookingForm(page, { pickup: ['Fells', 'Fells Point'], drop: ['Patterson', 'Patterson Park'], carType: 'Economy' });
    await screenshot(page, '03-booking-form-filled');
    await page.getByTestId('book-button').click();
    await page.getByTestId('estimate-dialog').waitFor();
    expect(await page.getByTestId('estimate-fare').textContent()).toMatch(/^\$\d+\.\d{2}$/);
    await screenshot(page, '04-estimate');
    await page.getByTestId('confirm-booking').click();
    await page.getByTestId('booking-success').waitFor();
    await page.getByTestId('go-to-booking').click();
    await page.waitForURL(/\/bookings\?trip=/);
    bookingId = new URL(page.url()).searchParams.get('trip') ?? '';
    expect(bookingId).not.toBe('');
    await waitForAttribute(page, 'trip-view', 'data-status', 'NEW');
    expect(await page.getByTestId('trip-otp').textContent()).toMatch(/^\d{5}$/);
    await screenshot(page, '05-rider-trip-new');
  });

  it('the driver sees the offer with its countdown and accepts it', async () => {
    const page = driver.page;
    // Reload: without the server's `offer` event the console learns of it on load.
    await waitForAttribute(page, 'offer-card', 'data-booking-id', bookingId, { reload: true });
    await page.getByTestId('offer-countdown').waitFor();
    await screenshot(page, '06-driver-offer');
    await page.getByTestId('offer-accept').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'ACCEPTED');
    await screenshot(page, '07-driver-accepted');
  });

  it('the rider sees the driver assigned and the car on the map', async () => {
    const page = rider.page;
    await waitForAttribute(page, 'trip-view', 'data-status', 'ACCEPTED', { reload: true });
    expect(await page.getByTestId('driver-name').textContent()).toBe('Driver 1');
    // The simulated car sends positions; the stored tracking point shows on load.
    const first = await waitForAttribute(page, 'map-marker-car', 'data-lat', /\d/, { reload: true });
    const moved = await (async () => {
      for (let attempt = 0; attempt < 20; attempt++) {
        await page.waitForTimeout(1500);
        await page.reload();
        const lat = await waitForAttribute(page, 'map-marker-car', 'data-lat', /\d/);
        if (lat !== first) return lat;
      }
      return first;
    })();
    expect(moved).not.toBe(first);
    await screenshot(page, '08-rider-driver-assigned');
  });

  it('the rider and the driver chat', async () => {
    await rider.page.getByTestId('chat-input').fill('Hi! I am by the Broadway pier.');
    await rider.page.getByTestId('chat-send').click();
    await rider.page.getByTestId('chat-message').filter({ hasText: 'Broadway pier' }).waitFor();
    const time = await rider.page.getByTestId('chat-time').first().textContent();
    expect(time).toMatch(/^\d{2}:\d{2}$/);
    expect(await rider.page.getByTestId('chat-date').first().textContent()).toMatch(/^\d{2}:\d{2}:\d{4}$/);

    await driver.page.reload();
    await driver.page.getByTestId('chat-message').filter({ hasText: 'Broadway pier' }).waitFor();
    await driver.page.getByTestId('chat-input').fill('On my way, two minutes.');
    await driver.page.getByTestId('chat-send').click();
    await driver.page.getByTestId('chat-message').filter({ hasText: 'two minutes' }).waitFor();
    await screenshot(driver.page, '09-driver-chat');

    await rider.page.reload();
    await rider.page.getByTestId('chat-message').filter({ hasText: 'two minutes' }).waitFor();
    await screenshot(rider.page, '10-rider-chat');
  });

  it('the driver arrives, starts with the rider\'s otp, and reaches the drop', async () => {
    const otp = (await rider.page.getByTestId('trip-otp').textContent()) ?? '';
    const page = driver.page;
    // The simulated car drives each leg in about 25 seconds.
    await waitForAttribute(page, 'simulation-state', 'data-arrived', 'true', { timeoutMs: 60_000 });
    await page.getByTestId('trip-arrive').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'ARRIVED');
    await page.getByTestId('trip-otp-input').fill(otp);
    await page.getByTestId('trip-start').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'STARTED');
    await screenshot(page, '11-driver-started');
    await waitForAttribute(page, 'simulation-state', 'data-leg', 'to-drop');
    await waitForAttribute(page, 'simulation-state', 'data-arrived', 'true', { timeoutMs: 60_000 });
    await page.getByTestId('trip-reach').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'REACHED');
    await screenshot(page, '12-driver-reached');
  });

  it('the driver collects cash, the rider rates, and both see COMPLETE', async () => {
    await driver.page.getByTestId('trip-collect-cash').click();
    await waitForAttribute(driver.page, 'driver-trip', 'data-status', 'PAID');

    const page = rider.page;
    await waitForAttribute(page, 'trip-view', 'data-status', 'PAID', { reload: true });
    await page.getByTestId('rating-panel').waitFor();
    await screenshot(page, '13-rider-rate');
    await rateFiveStars(page);
    await page.getByTestId('rate-submit').click();
    await waitForAttribute(page, 'trip-view', 'data-status', 'COMPLETE');
    await page.getByTestId('trip-complete').waitFor();
    await screenshot(page, '14-rider-complete');

    await waitForAttribute(driver.page, 'booking-row', 'data-status', 'COMPLETE', { reload: true });
    await driver.page.getByTestId('wallet-history').waitFor();
    await screenshot(driver.page, '15-driver-complete-wallet');
  });

  it('no errors reached either browser console', () => {
    expectNoErrors(rider, driver);
  });
});
