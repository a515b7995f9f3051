// The panel's users screens (issue #13): an admin adds a driver after the
// existence check, edits, approves and deletes; a fleet admin sees and adds
// only their own drivers; demo mode masks contacts and writes nothing.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { demoModeUrl, launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors } from './support/flows';

const POLL = { timeout: 15_000 };
const PHONE = { width: 390, height: 844 };
const stamp = Date.now().toString(36).toLowerCase();

interface UserJson {
  id: string;
  email: string;
  approved: boolean;
  vehicleNumber: string;
  fleetadmin: string | null;
}

function rows(page: Person['page'], list: string) {
  return page.locator(`[data-testid="users-${list}"] [role="row"][data-id]`);
}

async function search(page: Person['page'], list: string, text: string) {
  await page.getByTestId(`users-${list}-search`).fill(text);
  await page.keyboard.press('Enter');
}

describe('the panel: users', () => {
  let browser: Browser;
  let admin: Person;
  let adminToken = '';

  beforeAll(async () => {
    browser = await launchBrowser();
    adminToken = await apiSignIn('admin@demo.wayfare');
    admin = await newPerson(browser, 'users-admin');
    await signIn(admin, 'admin@demo.wayfare');
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('adds a driver after the existence check, edits, approves and deletes them', async () => {
    const { page } = admin;
    await page.getByTestId('panel-menu-drivers').click();
    await page.waitForURL(/\/drivers$/);
    await rows(page, 'drivers').first().waitFor(POLL);
    await page.getByTestId('user-add').click();
    const dialog = page.getByTestId('user-dialog');
    await dialog.getByTestId('user-firstName').fill('Nina');
    await dialog.getByTestId('user-lastName').fill(`Driver ${stamp}`);
    await dialog.getByTestId('user-email').fill('rider1@demo.wayfare');
    await dialog.getByTestId('user-save').click();
    await expect.poll(() => dialog.textContent()).toContain('A user with this e-mail or mobile number already exists.');
    const email = `nina-${stamp}@example.com`;
    await dialog.getByTestId('user-email').fill(email);
    await dialog.getByTestId('user-carType').click();
    await page.getByRole('option', { name: 'Economy' }).click();
    await dialog.getByTestId('user-vehicleNumber').fill('MD-NINA');
    await dialog.getByTestId('user-approved').click();
    await screenshot(page, 'panel-user-add-desktop');
    await dialog.getByTestId('user-save').click();
    await dialog.waitFor({ state: 'detached' });
    await search(page, 'drivers', stamp);
    await expect.poll(() => rows(page, 'drivers').count(), POLL).toBe(1);
    const row = rows(page, 'drivers').first();
    const id = (await row.getAttribute('data-id'))!;
    expect(await row.getByTestId('user-approved-chip').getAttribute('data-approved')).toBe('false');

    await row.getByTestId('action-edit').click();
    expect(await dialog.getByTestId('user-email').isDisabled()).toBe(true);
    // The driver's licence, uploaded by the admin and shown at once.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    await dialog.getByTestId('user-licence-input').setInputFiles({ name: 'licence.png', mimeType: 'image/png', buffer: png });
    await dialog.getByTestId('user-licence-image').waitFor(POLL);
    expect(((await call('GET', `/users/${id}`, adminToken)) as { licenseImage: string | null }).licenseImage).toBeTruthy();
    await dialog.getByTestId('user-vehicleNumber').fill('MD-NINA-2');
    await dialog.getByTestId('user-save').click();
    await expect.poll(async () => ((await call('GET', `/users/${id}`, adminToken)) as UserJson).vehicleNumber, POLL).toBe('MD-NINA-2');
    await expect.poll(() => row.textContent(), POLL).toContain('MD-NINA-2');

    await row.getByTestId('action-approve').click();
    await expect.poll(async () => row.getByTestId('user-approved-chip').getAttribute('data-approved'), POLL).toBe('true');
    await screenshot(page, 'panel-drivers-desktop');

    await row.getByTestId('action-delete').click();
    await page.getByTestId('confirm-ok').click();
    await expect.poll(() => rows(page, 'drivers').count(), POLL).toBe(0);
    await expect(call('GET', `/users/${id}`, adminToken)).rejects.toThrow(/404/);
  });

  it('lists riders, fleet admins and admins, and never offers deleting oneself', async () => {
    const { page } = admin;
    for (const list of ['riders', 'fleetadmins', 'alladmin']) {
      await page.getByTestId(`panel-menu-${list}`).click();
      await rows(page, list).first().waitFor(POLL);
    }
    const me = (await call('GET', '/auth/me', adminToken)) as { user: UserJson };
    const mine = page.locator(`[data-testid="users-alladmin"] [role="row"][data-id="${me.user.id}"]`);
    await mine.waitFor(POLL);
    expect(await mine.getByTestId('action-delete').isDisabled()).toBe(true);
    await screenshot(page, 'panel-alladmin-desktop');
  });

  it('shows a fleet admin only their drivers, and a driver they add joins their fleet', async () => {
    const fleet = await newPerson(browser, 'users-fleet');
    await signIn(fleet, 'fleet@demo.wayfare');
    const fleetToken = await apiSignIn('fleet@demo.wayfare');
    const me = (await call('GET', '/auth/me', fleetToken)) as { user: UserJson };
    const theirs = (await call('GET', '/users?limit=500', fleetToken)) as { items: UserJson[] };
    expect(theirs.items.every((driver) => driver.fleetadmin === me.user.id)).toBe(true);
    await fleet.page.getByTestId('panel-menu-drivers').click();
    await expect.poll(() => rows(fleet.page, 'drivers').count(), POLL).toBe(Math.min(theirs.items.length, 25));
    await fleet.page.getByTestId('user-add').click();
    const dialog = fleet.page.getByTestId('user-dialog');
    expect(await dialog.getByTestId('user-fleetadmin').count()).toBe(0);
    await dialog.getByTestId('user-firstName').fill('Fleet');
    await dialog.getByTestId('user-lastName').fill(`Driver ${stamp}`);
    await dialog.getByTestId('user-email').fill(`fleet-driver-${stamp}@example.com`);
    await dialog.getByTestId('user-save').click();
    await dialog.waitFor({ state: 'detached' });
    const added = (await call('GET', `/users?search=${stamp}`, fleetToken)) as { items: UserJson[] };
    expect(added.items.map((user) => user.fleetadmin)).toEqual([me.user.id]);
    await screenshot(fleet.page, 'panel-drivers-fleet');
    expectNoErrors(fleet);
    await fleet.context.close();
  });

  it('masks contacts and writes nothing in demo mode', async () => {
    const demo = await newPerson(browser, 'users-demo', { server: demoModeUrl() });
    await signIn(demo, 'admin@demo.wayfare');
    await demo.page.goto('/riders');
    const first = rows(demo.page, 'riders').first();
    await first.waitFor(POLL);
    expect(await first.textContent()).toContain('*');
    expect(await demo.page.getByTestId('user-add').isDisabled()).toBe(true);
    expect(await first.getByTestId('action-delete').isDisabled()).toBe(true);
    await screenshot(demo.page, 'panel-riders-demo');
    expectNoErrors(demo);
    await demo.context.close();
  });

  it('fits a phone and speaks Arabic right to left', async () => {
    const person = await newPerson(browser, 'users-phone-ar', { viewport: PHONE, locale: 'ar' });
    await signIn(person, 'admin@demo.wayfare');
    await person.page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await person.page.goto('/drivers');
    await expect.poll(() => person.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await rows(person.page, 'drivers').first().waitFor(POLL);
    await screenshot(person.page, 'panel-drivers-phone-ar');
    await person.page.getByTestId('user-add').click();
    await person.page.getByTestId('user-dialog').waitFor();
    await screenshot(person.page, 'panel-user-add-phone-ar');
    expectNoErrors(person);
    await person.context.close();
  });

  it('left no error in the consoles', () => {
    expectNoErrors(admin);
  });
});
