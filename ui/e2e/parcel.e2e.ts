// A parcel delivery end to end (spec §1 "delivery", §2 landing modals, §4
// PAYMENT_PENDING, §5 Delivery, §7 file storage): the admin turns the
// platform into a delivery platform with both parcel photos asked for (and
// back to taxi afterwards: the test files run one after another on one
// server, so no other file sees it); a new rider, rider22@demo.wayfare,
// completes the profile booking asks for, chooses the parcel type and option
// with their amounts, fills the delivery details the estimate asks for,
// prepays through the test gateway; driver 20 (Comfort, which no other
// browser test books) accepts, photographs the parcel at the pickup and at
// the drop, and finishes; the rider sees both photos and rates.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { loadedImage, pngFile } from './support/files';
import { expectNoErrors, fillBookingForm, rateFiveStars, waitForAttribute } from './support/flows';

const LIVE = { timeoutMs: 15_000 };
const DELIVERY_SETTINGS = ['appcat', 'AllowDeliveryPickupImageCapture', 'AllowFinalDeliveryImageCapture'] as const;

function money(text: string | null) {
  const match = /^\$(\d+\.\d{2})$/.exec(text ?? '');
  if (!match) throw new Error(`not an amount: ${text}`);
  return Number(match[1]);
}

describe('a parcel delivery', () => {
  let browser: Browser;
  let rider: Person;
  let driver: Person;
  let adminToken = '';
  let before: Record<string, unknown> = {};
  let bookingId = '';

  beforeAll(async () => {
    adminToken = await apiSignIn('admin@demo.wayfare');
    const settings = (await call('GET', '/settings', null)) as Record<string, unknown>;
    before = Object.fromEntries(DELIVERY_SETTINGS.map((name) => [name, settings[name]]));
    await call('PATCH', '/settings', adminToken, {
      appcat: 'delivery',
      AllowDeliveryPickupImageCapture: true,
      AllowFinalDeliveryImageCapture: true,
    });
    browser = await launchBrowser();
    rider = await newPerson(browser, 'rider22');
    driver = await newPerson(browser, 'driver20');
  });

  afterAll(async () => {
    await browser?.close();
    if (adminToken) await call('PATCH', '/settings', adminToken, before);
  });

  it('puts the driver online in the console', async () => {
    await signIn(driver, 'driver20@demo.wayfare');
    const page = driver.page;
    await page.getByTestId('share-simulate').click();
    await page.getByTestId('driver-online-toggle').click();
    await waitForAttribute(page, 'driver-console', 'data-online', 'true');
    await page.getByTestId('no-offers').waitFor();
  });

  it('asks a new rider to complete the profile before booking', async () => {
    await signIn(rider, 'rider22@demo.wayfare');
    const page = rider.page;
    await fillBookingForm(page, { pickup: ['Fells', 'Fells Point'], drop: ['Patterson', 'Patterson Park'], carType: 'Comfort' });
    await page.getByTestId('book-button').click();
    expect(await page.getByTestId('alert-message').textContent()).toBe(
      'Please complete your profile (first name, last name and e-mail) before booking.',
    );
    await page.getByRole('link', { name: 'Complete your profile' }).click();
    await page.waitForURL('**/profile');
    await page.getByTestId('profile-first-name').fill('Leila');
    await page.getByTestId('profile-last-name').fill('Mansour');
    await page.getByTestId('profile-submit').click();
    await page.getByTestId('profile-message').filter({ hasText: 'Your profile was updated.' }).waitFor();
  });

  it('offers the parcel types and options with their amounts, and prices the choice', async () => {
    const page = rider.page;
    await page.goto('/');
    await fillBookingForm(page, { pickup: ['Fells', 'Fells Point'], drop: ['Patterson', 'Patterson Park'], carType: 'Comfort' });
    await page.getByTestId('book-button').click();
    await page.getByTestId('parcel-dialog').waitFor();
    const labels = async (testId: string) => (await page.getByTestId(testId).locator('label').allTextContents()).map((text) => text.trim());
    expect(await labels('parcel-types')).toEqual(['Envelope ($0.00)', 'Small box ($3.00)']);
    // Issue #34: options are optional, "None" to begin with; the parcel type is required, the first to begin with.
    expect(await labels('parcel-options')).toEqual(['None', 'Fragile handling ($2.00)']);
    expect(await page.getByLabel('Envelope ($0.00)').isChecked()).toBe(true);
    expect(await page.getByTestId('parcel-dialog').getByLabel('None').isChecked()).toBe(true);
    await page.getByLabel('Fragile handling ($2.00)').check();
    await page.getByTestId('parcel-confirm').click();
    await page.getByTestId('estimate-dialog').waitFor();
    const envelope = money(await page.getByTestId('estimate-fare').textContent());
    await page.getByTestId('estimate-dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('estimate-dialog').waitFor({ state: 'detached' });

    await page.getByTestId('book-button').click();
    await page.getByTestId('parcel-dialog').waitFor();
    await page.getByLabel('Small box ($3.00)').check();
    await page.getByLabel('Fragile handling ($2.00)').check();
    await screenshot(page, '50-parcel-choice');
    const estimated = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/v1/bookings/estimate');
    await page.getByTestId('parcel-confirm').click();
    expect((await estimated).request().postDataJSON()).toMatchObject({ carType: 'Comfort', parcelTypeIndex: 1, optionIndex: 0 });
    await page.getByTestId('estimate-dialog').waitFor();
    const smallBox = money(await page.getByTestId('estimate-fare').textContent());
    expect(smallBox).toBeGreaterThan(envelope);
  });

  it('asks for the four delivery details and says what is missing', async () => {
    const page = rider.page;
    for (const field of ['delivery-person', 'delivery-phone', 'pickup-instructions', 'delivery-instructions']) {
      expect(await page.getByTestId(field).isEditable()).toBe(true);
    }
    // Issue #34: what is missing is said on its field.
    await page.getByTestId('confirm-booking').click();
    expect(await page.locator('#delivery-person-helper-text').textContent()).toBe("Enter the recipient's name.");
    await page.getByTestId('delivery-person').fill('Omar Khalil');
    await page.getByTestId('delivery-phone').fill('call me');
    await page.getByTestId('confirm-booking').click();
    expect(await page.locator('#delivery-phone-helper-text').textContent()).toMatch(/^Enter the recipient's phone number/);
    await screenshot(page, '51-parcel-details-missing');
    await page.getByTestId('delivery-phone').fill('410 555 0199');
    await page.getByTestId('pickup-instructions').fill('Ring the bell at the side door');
    await page.getByTestId('delivery-instructions').fill('Leave it with the concierge');
    const created = page.waitForResponse(
      (response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/api/v1/bookings',
    );
    await page.getByTestId('confirm-booking').click();
    const booking = (await (await created).json()) as { id: string; status: string; payableAmount: number };
    expect(booking.status).toBe('PAYMENT_PENDING');
    bookingId = booking.id;
    await page.getByTestId('payment-dialog').waitFor();
    expect(await page.getByTestId('payment-dialog').textContent()).toContain(`Amount due: $${booking.payableAmount.toFixed(2)}`);
    await screenshot(page, '52-parcel-pay');
  });

  it('prepays by card through the test gateway, and the booking goes out to the driver', async () => {
    const page = rider.page;
    await page.getByTestId('payment-dialog').getByRole('button', { name: 'Test gateway' }).click();
    await page.waitForURL(/\/api\/v1\/payments\/test\/pay\//);
    await page.locator('#pay').click();
    await page.waitForURL(/\/bookings\?trip=/);
    expect(new URL(page.url()).searchParams.get('trip')).toBe(bookingId);
    await waitForAttribute(page, 'trip-view', 'data-status', 'NEW');
    expect(await page.getByTestId('delivery-detail-parcel-type').textContent()).toBe('Small box ($3.00)');
    expect(await page.getByTestId('delivery-detail-delivery-person').textContent()).toBe('Omar Khalil');
    expect(await page.getByTestId('delivery-detail-delivery-phone').textContent()).toBe('410 555 0199');
    expect(await page.getByTestId('trip-view').textContent()).toContain('Paid by Card');
    await waitForAttribute(driver.page, 'offer-card', 'data-booking-id', bookingId, LIVE);
    await screenshot(driver.page, '53-parcel-offer');
  });

  it('has the driver photograph the parcel at the pickup, and shows the rider the photo', async () => {
    const page = driver.page;
    await page.getByTestId('offer-accept').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'ACCEPTED');
    expect(await page.getByTestId('delivery-detail-pickup-instructions').textContent()).toBe('Ring the bell at the side door');
    // Photos come at their stage: none before the driver is at the pickup.
    expect(await page.getByTestId('parcel-photo-input-pickup_image').count()).toBe(0);
    await page.getByTestId('trip-arrive').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'ARRIVED');
    expect(await page.getByTestId('parcel-photo-input-deliver_image').count()).toBe(0);
    const uploaded = page.waitForResponse((response) => new URL(response.url()).pathname === `/api/v1/bookings/${bookingId}/images`);
    await page.getByTestId('parcel-photo-input-pickup_image').setInputFiles(pngFile('pickup.png', [240, 180, 20], 40));
    expect((await uploaded).status()).toBe(200);
    expect(await page.getByTestId('parcel-photo-message').textContent()).toBe('Photo saved.');
    expect((await loadedImage(page, 'parcel-photo-pickup')).naturalWidth).toBe(40);
    await screenshot(page, '54-driver-pickup-photo');

    const shown = await loadedImage(rider.page, 'parcel-photo-pickup', LIVE.timeoutMs);
    expect(new URL(shown.src).pathname).toMatch(/^\/api\/v1\/files\/[0-9a-f-]{36}$/);
    expect(await rider.page.getByTestId('parcel-photo-deliver').count()).toBe(0);
  });

  it('has the driver start with the otp, photograph the delivery at the drop and finish the prepaid trip', async () => {
    const otp = (await rider.page.getByTestId('trip-otp').textContent()) ?? '';
    const page = driver.page;
    await page.getByTestId('trip-otp-input').fill(otp);
    await page.getByTestId('trip-start').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'STARTED');
    await page.getByTestId('parcel-photo-input-deliver_image').setInputFiles(pngFile('delivered.png', [20, 160, 90], 48));
    expect((await loadedImage(page, 'parcel-photo-deliver')).naturalWidth).toBe(48);
    await page.getByTestId('trip-reach').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'REACHED');
    // Paid before dispatch: nothing to collect.
    expect(await page.getByTestId('trip-collect-cash').count()).toBe(0);
    await screenshot(page, '55-driver-finish-delivery');
    await page.getByTestId('trip-finish').click();
    await waitForAttribute(page, 'driver-trip', 'data-status', 'PAID');
  });

  it('shows the rider both photos, and the trip ends with the rating', async () => {
    const page = rider.page;
    await waitForAttribute(page, 'trip-view', 'data-status', 'PAID', LIVE);
    expect((await loadedImage(page, 'parcel-photo-pickup')).naturalWidth).toBe(40);
    expect((await loadedImage(page, 'parcel-photo-deliver')).naturalWidth).toBe(48);
    await screenshot(page, '56-rider-parcel-photos');
    await rateFiveStars(page);
    await page.getByTestId('rate-submit').click();
    await waitForAttribute(page, 'trip-view', 'data-status', 'COMPLETE');
    await page.getByTestId('trip-complete').waitFor();
    // The photos stay with the finished booking.
    await page.reload();
    expect((await loadedImage(page, 'parcel-photo-deliver')).naturalWidth).toBe(48);
  });

  it('lets the driver go offline again', async () => {
    await driver.page.getByTestId('driver-online-toggle').click();
    await waitForAttribute(driver.page, 'driver-console', 'data-online', 'false');
  });

  it('no errors reached either browser console', () => {
    expectNoErrors(rider, driver);
  });
});
