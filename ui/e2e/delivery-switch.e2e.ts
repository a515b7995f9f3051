// Delivery is a product switch (issue #34): the admin turns the platform into
// a parcel delivery service on the settings screen; a new rider,
// rider51@demo.wayfare, books a parcel on the landing page in the delivery
// words — a parcel type, the option left at None, the recipient first left
// empty and pointed at on its field — sees the estimate's breakdown with the
// parcel type's line, prepays through the test gateway and cancels while no
// driver has it (free), so no trip stays open; the estimate is pictured on a
// desktop and on a phone in Arabic; the admin switches back to taxi on the
// settings screen (and afterAll through the API, should a step fail).
// No driver goes online here.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors, fillBookingForm, waitForAttribute } from './support/flows';
import type { FareBreakdown } from '../src/types/api';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const DOCS_SCREENSHOTS = resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots');
const RIDER = 'rider51@demo.wayfare';
const TRIP = { pickup: ['Fells', 'Fells Point'] as [string, string], drop: ['Patterson', 'Patterson Park'] as [string, string], carType: 'XL' };

/** A screenshot committed with the docs, once the estimate's map has drawn. */
async function docsScreenshot(page: Page, name: string) {
  mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
  await page.waitForTimeout(600);
  await page
    .waitForFunction(() => Array.from(document.querySelectorAll('[data-renderer="maplibre"]')).every((map) => map.getAttribute('data-map-idle') === 'true'), undefined, {
      timeout: 20_000,
    })
    .catch(() => console.warn(`screenshot ${name}: a map was still loading after 20 s`));
  await page.screenshot({ path: resolve(DOCS_SCREENSHOTS, `${name}.png`) });
}

const isPath = (method: string, path: string) => (response: Response) =>
  response.request().method() === method && new URL(response.url()).pathname === path;

/** The service on the settings screen: chosen, saved, and the server has it. */
async function switchService(admin: Person, service: 'taxi' | 'delivery') {
  const { page } = admin;
  await page.goto('/settings');
  await page.getByTestId('setting-appcat').waitFor();
  await page.getByTestId(`setting-appcat-${service}`).check();
  const saved = page.waitForResponse(isPath('PATCH', '/api/v1/settings'));
  await page.getByTestId('settings-save').click();
  const response = await saved;
  expect(response.status()).toBe(200);
  expect(response.request().postDataJSON()).toEqual({ appcat: service });
  await page.getByTestId('notification').filter({ hasText: 'Settings saved.' }).waitFor();
  expect(((await call('GET', '/settings', null)) as { appcat: string }).appcat).toBe(service);
}

/** From the landing page to the parcel chooser: the trip, the car type, book. */
async function openParcelChooser(page: Page) {
  await page.goto('/');
  await fillBookingForm(page, TRIP);
  await page.getByTestId('book-button').click();
  await page.getByTestId('parcel-dialog').waitFor();
}

/** The estimate's total at the top of the dialog's view, its breakdown under it. */
async function showBreakdown(page: Page) {
  await page.getByTestId('estimate-total').evaluate((total) => total.scrollIntoView({ block: 'start' }));
}

/** The breakdown's rows as [label, amount]. */
async function breakdownRows(page: Page) {
  return page.getByTestId('fare-breakdown').locator('tr').evaluateAll((rows) =>
    rows.map((row) => Array.from(row.querySelectorAll('td')).map((cell) => cell.textContent?.trim() ?? '')),
  );
}

describe('delivery is a product switch', () => {
  let browser: Browser;
  let admin: Person;
  let rider: Person;
  let riderArabic: Person | undefined;
  let adminToken = '';
  let serviceBefore = 'taxi';
  let bookingId = '';

  beforeAll(async () => {
    adminToken = await apiSignIn('admin@demo.wayfare');
    serviceBefore = ((await call('GET', '/settings', null)) as { appcat: string }).appcat;
    browser = await launchBrowser();
    admin = await newPerson(browser, 'admin', { viewport: DESKTOP });
    rider = await newPerson(browser, 'rider51', { viewport: DESKTOP });
  });

  afterAll(async () => {
    await browser?.close();
    if (!adminToken) return;
    // Safety nets, should a step have failed: no booking left open, the service as it was.
    if (bookingId) {
      const booking = (await call('GET', `/bookings/${bookingId}`, adminToken).catch(() => null)) as { status?: string } | null;
      if (booking?.status && !['CANCELLED', 'COMPLETE'].includes(booking.status)) {
        await call('POST', `/bookings/${bookingId}/cancel`, adminToken, { reason: 'Browser test clean-up' }).catch(() => undefined);
      }
    }
    await call('PATCH', '/settings', adminToken, { appcat: serviceBefore === 'delivery' ? 'delivery' : 'taxi' });
  });

  it('the admin switches the service to parcel delivery on the settings screen; demo mode is not offered there', async () => {
    await signIn(admin, 'admin@demo.wayfare');
    const page = admin.page;
    await page.goto('/settings');
    const service = page.getByTestId('setting-appcat');
    await service.waitFor();
    expect(await page.getByTestId('setting-appcat-taxi').isChecked()).toBe(true);
    const card = page.locator('.MuiCard-root').first();
    expect(await card.textContent()).toContain('Parcel delivery');
    expect(await card.textContent()).toContain('Changes the words of the whole app');
    expect(await page.getByTestId('setting-AllowCriticalEditsAdmin').count()).toBe(0);
    expect(await page.getByTestId('setting-noDriverCancelMinutes').inputValue()).toMatch(/^\d+$/);
    expect(await page.getByTestId('setting-autoCompleteMinutes').inputValue()).toMatch(/^\d+$/);
    await screenshot(page, 'delivery-switch-settings');
    await switchService(admin, 'delivery');
  });

  it('a new rider completes the profile booking asks for', async () => {
    await signIn(rider, RIDER);
    const page = rider.page;
    await page.goto('/');
    await fillBookingForm(page, TRIP);
    await page.getByTestId('book-button').click();
    expect(await page.getByTestId('alert-message').textContent()).toBe('Please complete your profile (first name, last name and e-mail) before booking.');
    await page.getByRole('link', { name: 'Complete your profile' }).click();
    await page.waitForURL('**/profile');
    await page.getByTestId('profile-first-name').fill('Nadia');
    await page.getByTestId('profile-last-name').fill('Sender');
    await page.getByTestId('profile-submit').click();
    await page.getByTestId('profile-message').filter({ hasText: 'Your profile was updated.' }).waitFor();
  });

  it('books a parcel in the delivery words: a parcel type, no option, the recipient pointed at, the breakdown', async () => {
    const page = rider.page;
    await page.goto('/');
    const form = page.getByTestId('booking-form');
    await form.waitFor();
    expect(await form.textContent()).toContain('Send a parcel');
    expect(await page.getByLabel('Pickup address').count()).toBe(1);
    expect(await page.getByLabel('Delivery address').count()).toBe(1);
    expect((await page.getByTestId('book-button').textContent())?.trim()).toBe('Book a delivery');

    await openParcelChooser(page);
    const options = (await page.getByTestId('parcel-options').locator('label').allTextContents()).map((text) => text.trim());
    expect(options).toEqual(['None', 'Fragile handling ($2.00)']);
    expect(await page.getByTestId('parcel-dialog').getByLabel('None').isChecked()).toBe(true);
    await page.getByTestId('parcel-dialog').getByLabel('Small box ($3.00)').check();
    const estimated = page.waitForResponse(isPath('POST', '/api/v1/bookings/estimate'));
    await page.getByTestId('parcel-confirm').click();
    const answer = await estimated;
    const asked = answer.request().postDataJSON() as Record<string, unknown>;
    expect(asked).toMatchObject({ carType: 'XL', parcelTypeIndex: 1 });
    expect(asked).not.toHaveProperty('optionIndex');
    const estimate = (await answer.json()) as { estimateFare: number; breakdown: FareBreakdown };

    const dialog = page.getByTestId('estimate-dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Confirm your delivery');
    expect(await dialog.textContent()).toContain('Delivery details');
    expect((await page.getByTestId('confirm-booking').textContent())?.trim()).toBe('Confirm delivery');

    // The recipient left empty: said on the field, which takes the focus; nothing is sent.
    let posted = false;
    const watch = (response: Response) => {
      if (isPath('POST', '/api/v1/bookings')(response)) posted = true;
    };
    page.on('response', watch);
    await page.getByTestId('confirm-booking').click();
    const person = page.getByTestId('delivery-person');
    expect(await person.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#delivery-person-helper-text').textContent()).toBe("Enter the recipient's name.");
    expect(await person.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await page.getByLabel("Recipient's name").getAttribute('data-testid')).toBe('delivery-person');
    page.off('response', watch);
    expect(posted).toBe(false);

    await person.fill('Omar Khalil');
    expect(await person.getAttribute('aria-invalid')).toBe('false');
    await page.getByTestId('delivery-phone').fill('410 555 0199');
    await page.getByTestId('pickup-instructions').fill('Ring the bell at the side door');

    // The breakdown: the formula's three lines, the parcel type's amount, what is paid.
    const rows = await breakdownRows(page);
    expect(rows.map(([label]) => label).slice(0, 3)).toEqual([
      'Base fare',
      expect.stringMatching(/^Distance \(\d+(\.\d)? km\)$/),
      expect.stringMatching(/^Time \(/),
    ]);
    expect(rows).toContainEqual(['Parcel: Small box', '$3.00']);
    expect(rows.some(([label]) => label.startsWith('Option'))).toBe(false);
    expect(rows.at(-1)).toEqual(['You pay', `$${estimate.breakdown.payable.toFixed(2)}`]);
    expect(estimate.breakdown.parcel).toBe(3);
    await showBreakdown(page);
    await docsScreenshot(page, 'delivery-estimate');

    const created = page.waitForResponse(isPath('POST', '/api/v1/bookings'));
    await page.getByTestId('confirm-booking').click();
    const booking = (await (await created).json()) as { id: string; status: string; optionSelected: unknown; parcelTypeSelected: { description: string } };
    expect(booking.status).toBe('PAYMENT_PENDING');
    expect(booking.parcelTypeSelected.description).toBe('Small box');
    expect(booking.optionSelected).toBeNull();
    bookingId = booking.id;
  });

  it('prepays through the test gateway; the trip page speaks of the parcel', async () => {
    const page = rider.page;
    await page.getByTestId('payment-dialog').waitFor();
    await page.getByTestId('payment-dialog').getByRole('button', { name: 'Test gateway' }).click();
    await page.waitForURL(/\/api\/v1\/payments\/test\/pay\//);
    await page.locator('#pay').click();
    await page.waitForURL(/\/bookings\?trip=/);
    expect(new URL(page.url()).searchParams.get('trip')).toBe(bookingId);
    await waitForAttribute(page, 'trip-view', 'data-status', 'NEW');
    const reference = await page.getByTestId('trip-view').getAttribute('data-reference');
    expect(await page.getByTestId('trip-view').getByRole('heading', { level: 2 }).textContent()).toBe(`Delivery ${reference}`);
    expect(await page.getByTestId('trip-next-step').textContent()).toBe('Looking for a driver to collect your parcel…');
    expect(await page.getByTestId('delivery-detail-delivery-person').textContent()).toBe('Omar Khalil');
  });

  it('the rider cancels while no driver has it, free of charge', async () => {
    const page = rider.page;
    await page.getByTestId('cancel-booking').click();
    const dialog = page.getByTestId('cancel-dialog');
    await dialog.getByRole('radio').first().check();
    await page.getByTestId('cancel-confirm').click();
    await waitForAttribute(page, 'trip-view', 'data-status', 'CANCELLED');
    const booking = (await call('GET', `/bookings/${bookingId}`, adminToken)) as { status: string; cancellationFee: number };
    expect(booking).toMatchObject({ status: 'CANCELLED', cancellationFee: 0 });
  });

  it('the estimate with its breakdown reads right to left on a phone in Arabic', async () => {
    riderArabic = await newPerson(browser, 'rider51-ar', { viewport: PHONE, locale: 'ar' });
    await signIn(riderArabic, RIDER);
    const page = riderArabic.page;
    await page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await openParcelChooser(page);
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await page.getByTestId('parcel-dialog').getByLabel('Small box ($3.00)').check();
    await page.getByTestId('parcel-confirm').click();
    await page.getByTestId('estimate-dialog').waitFor();
    expect(await page.getByTestId('fare-breakdown').textContent()).toContain('الطرد: Small box');
    await page.getByTestId('delivery-person').fill('عمر خليل');
    await page.getByTestId('delivery-phone').fill('410 555 0199');
    await showBreakdown(page);
    await docsScreenshot(page, 'delivery-estimate-phone-ar');
    // Not booked: the dialog is closed and nothing stays open.
    await page.getByTestId('estimate-dialog').getByRole('button', { name: 'إلغاء' }).click();
    await page.getByTestId('estimate-dialog').waitFor({ state: 'detached' });
  });

  it('the admin switches the service back to taxi on the settings screen', async () => {
    await switchService(admin, 'taxi');
    await rider.page.goto('/');
    expect((await rider.page.getByTestId('book-button').textContent())?.trim()).toBe('Book now');
  });

  it('no errors reached any browser console', () => {
    expectNoErrors(admin, rider, ...(riderArabic ? [riderArabic] : []));
  });
});
