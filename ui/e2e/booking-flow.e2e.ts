// A rider signs in and books: the form, the estimate, the trip waiting for a
// driver with its otp; the driver signs in to the console, goes online and
// takes the trip to the drop; the rider tries to pay from an empty wallet,
// is told why not, and the driver collects cash instead.
// e2e/live-updates.e2e.ts runs a whole trip for what the other person sees
// live (offers, the lost race, the car moving, chat, each stage, rating and
// the driver's wallet); this file does not repeat it.
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors, fillBookingForm, waitForAttribute } from './support/flows';

describe('a rider books a trip and pays', () => {
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

  it('the rider books a ride and sees the estimate, then the trip waiting for a driver', async () => {
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
    await page.getByTestId('finding-driver').waitFor();
    expect(await page.getByTestId('trip-otp').textContent()).toMatch(/^\d{5}$/);
    await screenshot(page, '05-rider-trip-new');
  });

  it('the driver takes the trip to the drop with the rider\'s otp', async () => {
    const otp = (await rider.page.getByTestId('trip-otp').textContent()) ?? '';
    const page = driver.page;
    await waitForAttribute(page, 'offer-card', 'data-booking-id', bookingId);
    await page.getByTestId('offer-accept').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'ACCEPTED');
    await page.getByTestId('trip-arrive').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'ARRIVED');
    await page.getByTestId('trip-otp-input').fill(otp);
    await page.getByTestId('trip-start').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'STARTED');
    await page.getByTestId('trip-reach').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'REACHED');
  });

  it('the rider cannot pay from an empty wallet and is told why', async () => {
    const page = rider.page;
    await waitForAttribute(page, 'trip-view', 'data-status', 'REACHED');
    expect(await page.getByTestId('pay-wallet').textContent()).toBe('Pay from wallet ($0.00)');
    await page.getByTestId('pay-wallet').click();
    expect(await page.getByTestId('trip-error').textContent()).toBe('Your wallet balance is too low.');
    expect(await page.getByTestId('trip-view').getAttribute('data-status')).toBe('REACHED');
    await screenshot(page, '16-rider-wallet-too-low');
  });

  it('the driver collects cash instead, and the rider sees it paid', async () => {
    await driver.page.getByTestId('trip-collect-cash').click();
    await waitForAttribute(driver.page, 'driver-trip', 'data-status', 'PAID');
    await waitForAttribute(rider.page, 'trip-view', 'data-status', 'PAID');
    expect(await rider.page.getByTestId('trip-view').textContent()).toContain('Paid by Cash');
    await rider.page.getByTestId('rating-panel').waitFor();
  });

  it('the rider downloads the receipt of the paid trip from the trip page (issue #37)', async () => {
    const download = rider.page.waitForEvent('download');
    await rider.page.getByTestId('receipt-pdf').click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.pdf$/);
    const path = await file.path();
    expect(readFileSync(path).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('no errors reached either browser console, but the refused payment', () => {
    const refused = `status of 409 (Conflict) (${new URL(`/api/v1/bookings/${bookingId}/pay`, rider.page.url()).href})`;
    expectNoErrors({ ...rider, errors: rider.errors.filter((error) => !error.endsWith(refused)) }, driver);
  });
});
