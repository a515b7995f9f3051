// Issue #37: an admin sets a payment gateway up from the panel: the switch,
// a text field and a secret (the demo seals secrets with a key of its data
// directory), which is never shown again; the route tests take a gateway set
// up this way through a payment. Screenshots for docs/screenshots: the
// screen on a desktop in English and the dialog on a phone in Arabic.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { docsScreenshot, launchBrowser, newPerson, signIn } from './support/browser';
import { expectNoErrors } from './support/flows';

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const ADMIN = 'admin@demo.wayfare';

describe('payment settings in the panel', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterAll(async () => {
    // Leave the shared server as other files expect it: Stripe off, no fields.
    const token = await apiSignIn(ADMIN);
    await call('PUT', '/payment-gateways/stripe', token, { active: false, fields: { stripe_public_key: null, stripe_private_key: null } });
    await browser?.close();
  });

  it('lists every gateway, switches Stripe on with its public key, and says what is still missing', async () => {
    const person = await newPerson(browser, 'payment-settings', { viewport: DESKTOP });
    await signIn(person, ADMIN);
    const { page } = person;
    await page.goto('/paymentsettings');
    await page.getByTestId('gateway-status-test').waitFor();
    expect(await page.getByTestId('gateway-status-test').textContent()).toBe('On');
    expect(await page.getByTestId('gateway-status-stripe').textContent()).toBe('Off');
    const stripeRow = page.getByTestId('gateways-grid').getByRole('row').filter({ hasText: 'Stripe' });
    await stripeRow.getByRole('menuitem', { name: 'Edit' }).click();
    const dialog = page.getByTestId('gateway-dialog');
    await dialog.getByTestId('gateway-active').click();
    await dialog.getByTestId('gateway-field-stripe_public_key').fill('pk_test_wayfare_e2e');
    expect(await dialog.getByTestId('gateway-missing').textContent()).toContain('stripe_private_key');
    await dialog.getByTestId('gateway-field-stripe_private_key').fill('sk_test_wayfare_e2e');
    expect(await dialog.getByTestId('gateway-missing').textContent()).not.toContain('stripe_private_key');
    await dialog.getByTestId('gateway-save').click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('gateway-status-stripe').filter({ hasText: 'Incomplete' }).waitFor();
    await page.getByTestId('gateway-changes').getByText('active, stripe_private_key, stripe_public_key').waitFor();
    expect(await page.content()).not.toContain('sk_test_wayfare_e2e');
    await docsScreenshot(page, 'payment-settings');
    // Open again: the secret is set, and its field is empty.
    await stripeRow.getByRole('menuitem', { name: 'Edit' }).click();
    expect(await dialog.getByTestId('gateway-field-stripe_private_key').inputValue()).toBe('');
    expect(await dialog.textContent()).toContain('Set. Type a new value to replace it.');
    await dialog.getByTestId('gateway-cancel').click();
    expectNoErrors(person);
    await person.context.close();
  });

  it('draws the dialog on a phone in Arabic, right to left, with secrets never shown', async () => {
    const person = await newPerson(browser, 'payment-settings-phone-ar', { viewport: PHONE, locale: 'ar' });
    await signIn(person, ADMIN);
    const { page } = person;
    await page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await page.goto('/paymentsettings');
    await page.getByTestId('gateway-status-stripe').waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    const stripeRow = page.getByTestId('gateways-grid').getByRole('row').filter({ hasText: 'Stripe' });
    await stripeRow.getByRole('menuitem').first().click();
    const dialog = page.getByTestId('gateway-dialog');
    await dialog.waitFor();
    expect(await dialog.getByTestId('gateway-field-webhook_secret').getAttribute('type')).toBe('password');
    expect(await dialog.getByTestId('gateway-field-webhook_secret').inputValue()).toBe('');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(1);
    await docsScreenshot(page, 'payment-settings-dialog-phone-ar');
    expectNoErrors(person);
    await person.context.close();
  });
});
