// The panel's catalogue screens (issue #13): cancellation reasons, promos and
// push notifications, as an admin and in demo mode.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { demoModeUrl, launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { chooseCarType, expectNoErrors, expectRefused, fillBookingForm } from './support/flows';

const POLL = { timeout: 15_000 };
const PHONE = { width: 390, height: 844 };
const stamp = Date.now().toString(36).toUpperCase();
// The text of spec §8's proper_bonus.
const PROPER_BONUS = 'Please enter a referral bonus.';

/** '$12.34' as 12.34. */
function money(text: string | null) {
  return Number((text ?? '').replace(/[^0-9.]/g, ''));
}

describe('the panel: cancellation reasons, promos and notifications', () => {
  let browser: Browser;
  let admin: Person;
  // What the panel configures reaches these two: a rider's booking form and
  // estimate, a signed-in driver's console.
  let rider: Person;
  let driver: Person;
  let adminToken = '';

  beforeAll(async () => {
    browser = await launchBrowser();
    adminToken = await apiSignIn('admin@demo.wayfare');
    admin = await newPerson(browser, 'catalogue-admin');
    rider = await newPerson(browser, 'catalogue-rider');
    driver = await newPerson(browser, 'catalogue-driver');
    await signIn(admin, 'admin@demo.wayfare');
    await signIn(rider, 'rider3@demo.wayfare');
    await signIn(driver, 'driver15@demo.wayfare');
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('adds, renames and deletes a cancellation reason, ten to a page', async () => {
    const { page } = admin;
    await page.getByTestId('panel-menu-cancelreasons').click();
    const rows = page.locator('[data-testid="cancel-reasons"] [role="row"][data-id]');
    await rows.first().waitFor(POLL);
    const before = ((await call('GET', '/cancelreasons', null)) as { label: string }[]).length;
    await page.getByTestId('reason-add').click();
    await page.getByTestId('reason-dialog-input').fill(`Bridge closed ${stamp}`);
    await page.getByTestId('reason-dialog-save').click();
    await expect.poll(async () => ((await call('GET', '/cancelreasons', null)) as { label: string }[]).map((reason) => reason.label), POLL).toContain(`Bridge closed ${stamp}`);
    // A duplicate is the server's invalid_input, shown in the dialog.
    await page.getByTestId('reason-add').click();
    await page.getByTestId('reason-dialog-input').fill(`Bridge closed ${stamp}`);
    await page.getByTestId('reason-dialog-save').click();
    await expect.poll(() => page.getByTestId('reason-dialog').textContent()).toMatch(/valid|correct/i);
    expectRefused(admin, 400, '/api/v1/cancelreasons');
    await page.getByTestId('reason-dialog-cancel').click();
    await page.getByTestId('reason-dialog').waitFor({ state: 'detached' });
    expect(await rows.count()).toBe(Math.min(before + 1, 10));
    const last = ((await call('GET', '/cancelreasons', null)) as { value: number }[]).length - 1;
    await page.getByTestId('cancel-reasons-search').fill(stamp);
    const row = page.locator(`[data-testid="cancel-reasons"] [role="row"][data-id="${last}"]`);
    await row.getByTestId('action-edit').click();
    await page.getByTestId('reason-dialog-input').fill(`Bridge reopened ${stamp}`);
    await page.getByTestId('reason-dialog-save').click();
    await expect.poll(() => row.textContent(), POLL).toContain(`Bridge reopened ${stamp}`);
    await screenshot(page, 'panel-cancelreasons-desktop');
    await row.getByTestId('action-delete').click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(async () => ((await call('GET', '/cancelreasons', null)) as unknown[]).length, POLL).toBe(before);
  });

  it('adds a promo, refuses a taken code on its field, edits and deletes it', async () => {
    const { page } = admin;
    await page.getByTestId('panel-menu-promos').click();
    await page.getByTestId('promo-add').click();
    const dialog = page.getByTestId('promo-dialog');
    await dialog.getByTestId('promo-promo_name').fill(`ride${stamp}`);
    await dialog.getByTestId('promo-promo_description').fill('Ten percent off');
    await dialog.getByTestId('promo-promo_discount_value').fill('150');
    await dialog.getByTestId('promo-save').click();
    await expect.poll(() => dialog.textContent()).toContain('A percentage is at most 100.');
    await dialog.getByTestId('promo-promo_discount_value').fill('10');
    await dialog.getByTestId('promo-max_promo_discount_value').fill('5');
    await screenshot(page, 'panel-promo-add-desktop');
    await dialog.getByTestId('promo-save').click();
    await dialog.waitFor({ state: 'detached' });
    const grid = page.locator('[data-testid="promos-grid"] [role="row"][data-id]', { hasText: `RIDE${stamp}` });
    await grid.waitFor(POLL);
    // The same code again is the server's promo_exists, on the code.
    await page.getByTestId('promo-add').click();
    await dialog.getByTestId('promo-promo_name').fill(`RIDE${stamp}`);
    await dialog.getByTestId('promo-promo_discount_value').fill('3');
    await dialog.getByTestId('promo-save').click();
    await expect.poll(() => dialog.textContent(), POLL).toMatch(/exists|already/i);
    expectRefused(admin, 409, '/api/v1/promos');
    await dialog.getByTestId('promo-cancel').click();
    await dialog.waitFor({ state: 'detached' });
    // A rider's estimate takes the new code: 10% off, capped at 5.
    const ride = rider.page;
    await ride.goto('/');
    await fillBookingForm(ride, { pickup: ['Fells', 'Fells Point'], drop: ['Patterson', 'Patterson Park'], carType: 'Economy' });
    await ride.getByTestId('book-button').click();
    await ride.getByTestId('estimate-dialog').waitFor();
    const fare = money(await ride.getByTestId('estimate-fare').textContent());
    await ride.getByTestId('promo-code').fill(`ride${stamp}`);
    await ride.getByTestId('promo-apply').click();
    await ride.getByTestId('estimate-discount').waitFor(POLL);
    const [discount, payable] = ((await ride.getByTestId('estimate-discount').textContent()) ?? '').match(/\d+\.\d{2}/g)?.map(Number) ?? [];
    expect(discount).toBeGreaterThan(0);
    expect(discount).toBeLessThanOrEqual(Math.min(5, fare / 10 + 0.005));
    expect(payable).toBeCloseTo(fare - discount, 2);
    await screenshot(ride, 'panel-promo-rider-estimate-desktop');
    await ride.getByTestId('estimate-dialog').getByRole('button', { name: 'Cancel' }).click();
    await grid.getByTestId('action-edit').click();
    await dialog.getByTestId('promo-promo_discount_value').fill('12');
    await dialog.getByTestId('promo-save').click();
    await expect.poll(() => grid.textContent(), POLL).toContain('12%');
    await screenshot(page, 'panel-promos-desktop');
    await grid.getByTestId('action-delete').click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => grid.count(), POLL).toBe(0);
  });

  it('sends a notification to drivers, says no_user_match when nobody matches, and deletes one', async () => {
    const { page } = admin;
    await page.getByTestId('panel-menu-notifications').click();
    await page.getByTestId('notification-new').click();
    const dialog = page.getByTestId('notification-dialog');
    await dialog.getByTestId('notification-usertype').click();
    await page.getByTestId('notification-usertype-rider').click();
    await dialog.getByTestId('notification-devicetype').click();
    await page.getByTestId('notification-devicetype-IOS').click();
    await dialog.getByTestId('notification-title').fill(`Nobody ${stamp}`);
    await dialog.getByTestId('notification-body').fill('No iPhone riders in the demo.');
    await dialog.getByTestId('notification-send').click();
    await expect.poll(() => dialog.getByTestId('notification-error').textContent(), POLL).toBe('No user matches these filters.');
    expectRefused(admin, 404, '/api/v1/notifications');
    await dialog.getByTestId('notification-usertype').click();
    await page.getByTestId('notification-usertype-driver').click();
    await dialog.getByTestId('notification-devicetype').click();
    await page.getByTestId('notification-devicetype-All').click();
    await dialog.getByTestId('notification-title').fill(`Road closure ${stamp}`);
    await dialog.getByTestId('notification-body').fill('Pratt St is closed tonight.');
    await dialog.getByTestId('notification-send').click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.locator('[data-testid="notifications-grid"] [role="row"][data-id]', { hasText: `Road closure ${stamp}` });
    await row.waitFor(POLL);
    // The signed-in driver's console shows it as it arrives, without a reload.
    const told = driver.page.getByTestId('notification').filter({ hasText: 'Pratt St is closed tonight.' });
    await told.waitFor(POLL);
    expect(await told.getByTestId('notification-title').textContent()).toBe(`Road closure ${stamp}`);
    await screenshot(driver.page, 'panel-notification-driver-console');
    await screenshot(page, 'panel-notifications-desktop');
    const sent = (await call('GET', '/notifications?limit=50', adminToken)) as { items: { title: string }[] };
    expect(sent.items.map((item) => item.title)).not.toContain(`Nobody ${stamp}`);
    await row.getByTestId('action-delete').click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => row.count(), POLL).toBe(0);
  });

  it('changes the dispatch settings within the server’s bounds, and the app info the site shows', async () => {
    const { page } = admin;
    const before = (await call('GET', '/settings', adminToken)) as { autoDispatch: boolean; dispatchOfferSeconds: number; bonus: number };
    const info = (await call('GET', '/appinfo', adminToken)) as { CompanyPhone: string };
    try {
      await page.getByTestId('panel-menu-settings').click();
      await page.getByTestId('settings-form').waitFor();
      await page.getByTestId('setting-dispatchOfferSeconds').fill('4');
      await page.getByTestId('settings-save').click();
      await expect.poll(() => page.getByTestId('settings-form').textContent()).toContain('Between 5 and 3600.');
      await page.getByTestId('setting-dispatchOfferSeconds').fill('45');
      await page.getByTestId('setting-autoDispatch').click();
      // The referral bonus: a negative one is proper_bonus on its field.
      await page.getByTestId('setting-bonus').fill('-1');
      await page.getByTestId('settings-save').click();
      await expect.poll(() => page.getByTestId('settings-form').textContent()).toContain(PROPER_BONUS);
      await page.getByTestId('setting-bonus').fill('7');
      await screenshot(page, 'panel-settings-desktop');
      await page.getByTestId('settings-save').click();
      await expect.poll(async () => (await call('GET', '/settings', adminToken)) as typeof before, POLL).toMatchObject({ autoDispatch: !before.autoDispatch, dispatchOfferSeconds: 45, bonus: 7 });

      await page.getByTestId('panel-menu-appinfo').click();
      await page.getByTestId('appinfo-form').waitFor();
      await page.getByTestId('setting-CompanyPhone').fill('+1 410 555 0199');
      await page.getByTestId('settings-save').click();
      await expect.poll(async () => ((await call('GET', '/appinfo', null)) as typeof info).CompanyPhone, POLL).toBe('+1 410 555 0199');
      await page.goto('/contact-us');
      await expect.poll(() => page.locator('body').textContent(), POLL).toContain('+1 410 555 0199');
    } finally {
      await call('PATCH', '/settings', adminToken, { autoDispatch: before.autoDispatch, dispatchOfferSeconds: before.dispatchOfferSeconds, bonus: before.bonus });
      await call('PATCH', '/appinfo', adminToken, { CompanyPhone: info.CompanyPhone });
      await page.goto('/dashboard');
    }
  });

  it('adds a language from its JSON, which every visitor can then choose, and keeps the default', async () => {
    const { page } = admin;
    await page.getByTestId('panel-menu-languagesetting').click();
    const grid = page.locator('[data-testid="languages-grid"] [role="row"][data-id]');
    await grid.first().waitFor(POLL);
    // The default cannot go.
    const fallback = grid.filter({ has: page.getByTestId('language-default-chip') });
    await fallback.getByTestId('action-delete').click();
    await expect.poll(() => page.getByTestId('notification').allTextContents()).toContain('Cannot delete default language');
    await page.getByTestId('language-add').click();
    const dialog = page.getByTestId('language-dialog');
    await dialog.getByTestId('language-name').fill('Deutsch');
    await dialog.getByTestId('language-locale').fill('de');
    await dialog.getByTestId('language-json').fill('{"header.language": "Sprache",}');
    await dialog.getByTestId('language-save').click();
    await expect.poll(() => dialog.getByTestId('language-error').textContent()).toBe('JSON Error');
    await dialog.getByTestId('language-json').fill('{"header.language": "Sprache", "login.title": "Anmelden"}');
    await screenshot(page, 'panel-language-editor-desktop');
    await dialog.getByTestId('language-save').click();
    await dialog.waitFor({ state: 'detached' });
    const added = grid.filter({ hasText: 'Deutsch' });
    await added.waitFor(POLL);
    await screenshot(page, 'panel-languages-desktop');
    // A visitor who opens the site now finds it in the language select, without a restart.
    const visitor = await newPerson(browser, 'catalogue-visitor');
    await visitor.page.goto('/');
    await visitor.page.getByTestId('language-select').click();
    await visitor.page.getByRole('option', { name: 'Deutsch' }).waitFor(POLL);
    await visitor.page.keyboard.press('Escape');
    expectNoErrors(visitor);
    await visitor.context.close();
    // Made the default, it is what a new visitor's site speaks.
    await added.getByTestId('action-default').click();
    await added.getByTestId('language-default-chip').waitFor(POLL);
    const newcomer = await newPerson(browser, 'catalogue-newcomer');
    await newcomer.page.goto('/');
    await expect.poll(() => newcomer.page.evaluate(() => document.documentElement.lang), POLL).toBe('de');
    expectNoErrors(newcomer);
    await newcomer.context.close();
    // English again, so the new one may go.
    const english = grid.filter({ hasText: 'English' });
    await english.getByTestId('action-default').click();
    await english.getByTestId('language-default-chip').waitFor(POLL);
    await expect.poll(() => added.getByTestId('language-default-chip').count(), POLL).toBe(0);
    await added.getByTestId('action-delete').click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => added.count(), POLL).toBe(0);
  });

  it('adds a car type with its cancellation fees, image and parcel types, which a rider can book, and deletes it', async () => {
    const { page } = admin;
    await page.getByTestId('panel-menu-cartypes').click();
    const rows = page.locator('[data-testid="cartypes-grid"] [role="row"][data-id]');
    await rows.first().waitFor(POLL);
    await page.getByTestId('cartype-add').click();
    const dialog = page.getByTestId('cartype-dialog');
    await dialog.getByTestId('cartype-name').fill(`Van ${stamp}`);
    for (const [field, value] of [['base_fare', '4'], ['min_fare', '8'], ['rate_per_unit_distance', '1.5'], ['rate_per_hour', '12'], ['convenience_fees', '1']]) {
      await dialog.getByTestId(`cartype-${field}`).fill(value);
    }
    await dialog.getByTestId('cancelSlab-add').click();
    await dialog.getByTestId('cancelSlab-0-minsDelayed').fill('2');
    await dialog.getByTestId('cancelSlab-0-amount').fill('4');
    await dialog.getByTestId('cancelSlab-add').click();
    await dialog.getByTestId('cancelSlab-1-minsDelayed').fill('5');
    await dialog.getByTestId('cancelSlab-1-amount').fill('3');
    await dialog.getByTestId('cartype-save').click();
    await expect.poll(() => dialog.textContent()).toContain('One fee per minute, and never cheaper later.');
    await dialog.getByTestId('cancelSlab-1-amount').fill('6');
    await screenshot(page, 'panel-cartype-add-desktop');
    await dialog.getByTestId('cartype-save').click();
    await dialog.waitFor({ state: 'detached' });
    const row = rows.filter({ hasText: `Van ${stamp}` });
    await row.waitFor(POLL);
    const stored = ((await call('GET', '/cartypes', null)) as { name: string; cancelSlab: unknown }[]).find((car) => car.name === `Van ${stamp}`);
    expect(stored?.cancelSlab).toEqual([{ minsDelayed: 2, amount: 4 }, { minsDelayed: 5, amount: 6 }]);
    // The same name in another case is car_type_exists.
    await page.getByTestId('cartype-add').click();
    await dialog.getByTestId('cartype-name').fill(`van ${stamp.toLowerCase()}`);
    for (const field of ['base_fare', 'min_fare', 'rate_per_unit_distance', 'rate_per_hour']) await dialog.getByTestId(`cartype-${field}`).fill('1');
    await dialog.getByTestId('cartype-save').click();
    await expect.poll(() => dialog.textContent(), POLL).toMatch(/exists|already/i);
    expectRefused(admin, 409, '/api/v1/cartypes');
    await dialog.getByTestId('cartype-cancel').click();
    // A PNG for its image.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    await row.getByTestId('action-image').click();
    await page.getByTestId('cartype-image-input').setInputFiles({ name: 'van.png', mimeType: 'image/png', buffer: png });
    await row.getByTestId('cartype-image').waitFor(POLL);
    await screenshot(page, 'panel-cartypes-desktop');
    // A rider opening the site now can book the new car type.
    await rider.page.goto('/');
    await chooseCarType(rider.page, `Van ${stamp}`);
    await expect.poll(() => rider.page.getByTestId('cartype-select').textContent(), POLL).toContain(`Van ${stamp}`);
    // On a delivery platform the same dialog takes parcel types, which that
    // rider then chooses from.
    const { appcat } = (await call('GET', '/settings', null)) as { appcat: string };
    await call('PATCH', '/settings', adminToken, { appcat: 'delivery' });
    try {
      await page.reload();
      await row.getByTestId('action-edit').click();
      await dialog.getByTestId('parcelTypes-add').click();
      await dialog.getByTestId('parcelTypes-0-description').fill(`Crate ${stamp}`);
      await dialog.getByTestId('parcelTypes-0-amount').fill('5');
      await screenshot(page, 'panel-cartype-parcel-types-desktop');
      await dialog.getByTestId('cartype-save').click();
      await dialog.waitFor({ state: 'detached' });
      await rider.page.goto('/');
      await fillBookingForm(rider.page, { pickup: ['Fells', 'Fells Point'], drop: ['Patterson', 'Patterson Park'], carType: `Van ${stamp}` });
      await rider.page.getByTestId('book-button').click();
      await rider.page.getByTestId('parcel-dialog').waitFor(POLL);
      const labels = await rider.page.getByTestId('parcel-types').locator('label').allTextContents();
      expect(labels.map((label) => label.trim())).toEqual([`Crate ${stamp} ($5.00)`]);
      await rider.page.keyboard.press('Escape');
      await rider.page.getByTestId('parcel-dialog').waitFor({ state: 'detached' });
    } finally {
      await call('PATCH', '/settings', adminToken, { appcat });
    }
    await page.reload();
    await row.getByTestId('action-delete').click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => row.count(), POLL).toBe(0);
  });

  it('in demo mode writes nothing but what the server allows', async () => {
    const demo = await newPerson(browser, 'catalogue-demo', { server: demoModeUrl() });
    await signIn(demo, 'admin@demo.wayfare');
    await demo.page.goto('/cancelreasons');
    await demo.page.locator('[data-testid="cancel-reasons"] [role="row"][data-id]').first().waitFor(POLL);
    expect(await demo.page.getByTestId('reason-add').isDisabled()).toBe(true);
    await demo.page.goto('/notifications');
    await demo.page.getByTestId('notifications-grid').waitFor();
    expect(await demo.page.getByTestId('notification-new').isDisabled()).toBe(true);
    await demo.page.goto('/promos');
    await demo.page.getByTestId('promos-grid').waitFor();
    expect(await demo.page.getByTestId('promo-add').isDisabled()).toBe(false);
    await demo.page.goto('/settings');
    await demo.page.getByTestId('settings-form').waitFor();
    expect(await demo.page.getByTestId('settings-save').isDisabled()).toBe(true);
    expectNoErrors(demo);
    await demo.context.close();
  });

  it('fits a phone and speaks Arabic right to left', async () => {
    const person = await newPerson(browser, 'catalogue-phone-ar', { viewport: PHONE, locale: 'ar' });
    await signIn(person, 'admin@demo.wayfare');
    await person.page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await person.page.goto('/promos');
    await expect.poll(() => person.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await person.page.getByTestId('promos-grid').waitFor();
    await person.page.getByTestId('promo-add').click();
    await person.page.getByTestId('promo-dialog').waitFor();
    await screenshot(person.page, 'panel-promo-add-phone-ar');
    await person.page.getByTestId('promo-cancel').click();
    await person.page.goto('/cancelreasons');
    await person.page.locator('[data-testid="cancel-reasons"] [role="row"][data-id]').first().waitFor(POLL);
    await screenshot(person.page, 'panel-cancelreasons-phone-ar');
    expectNoErrors(person);
    await person.context.close();
  });

  it('left no error in the consoles', () => {
    expectNoErrors(admin, rider, driver);
  });
});
