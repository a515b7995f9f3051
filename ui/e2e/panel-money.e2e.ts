// The panel's money screens (issue #12): an admin credits a wallet, marks a
// driver's withdrawal paid out, and reads and exports the earnings reports;
// a fleet admin reads their fleet's driver earnings; demo mode writes nothing.
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { demoModeUrl, launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors } from './support/flows';
import { readXlsx } from './support/xlsx';

const POLL = { timeout: 15_000 };
const PHONE = { width: 390, height: 844 };
const stamp = Date.now().toString(36).toUpperCase();

describe('the panel: add to wallet, withdraws and earnings reports', () => {
  let browser: Browser;
  let admin: Person;
  let adminToken = '';
  const riderName = { firstName: 'Wallet', lastName: `Rider ${stamp}` };
  let riderId = '';

  beforeAll(async () => {
    browser = await launchBrowser();
    adminToken = await apiSignIn('admin@demo.wayfare');
    const rider = (await call('POST', '/users', adminToken, {
      usertype: 'rider',
      ...riderName,
      email: `wallet-rider-${stamp.toLowerCase()}@example.com`,
      mobile: `+1443${String(Date.now()).slice(-7)}`,
    })) as { id: string };
    riderId = rider.id;
    admin = await newPerson(browser, 'money-admin');
    await signIn(admin, 'admin@demo.wayfare');
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('credits a rider’s wallet once, and the rider’s page shows the new balance without reloading', async () => {
    // The rider watches their wallet in their own browser.
    const rider = await newPerson(browser, 'wallet-rider');
    await signIn(rider, `wallet-rider-${stamp.toLowerCase()}@example.com`);
    await rider.page.goto('/bookings');
    await expect.poll(() => rider.page.getByTestId('wallet-balance').textContent(), POLL).toBe('$0.00');
    const { page } = admin;
    await page.getByTestId('panel-menu-addtowallet').click();
    await page.waitForURL(/\/addtowallet$/);
    await page.getByTestId('wallet-amount').fill('0');
    await page.getByTestId('wallet-submit').click();
    await expect.poll(() => page.getByTestId('add-to-wallet').textContent()).toContain('Please choose a user and an amount above zero.');
    await page.getByTestId('wallet-user-input').fill(riderName.lastName);
    await page.getByTestId('wallet-user-option').first().click();
    await page.getByTestId('wallet-amount').fill('25.5');
    await page.getByTestId('wallet-submit').click();
    await expect.poll(() => page.getByTestId('wallet-credited').textContent(), POLL).toContain('$25.50');
    // The socket's wallet event, not a reload.
    await expect.poll(() => rider.page.getByTestId('wallet-balance').textContent(), POLL).toBe('$25.50');
    expectNoErrors(rider);
    await rider.context.close();
    await screenshot(page, 'panel-addtowallet-desktop');
    const wallet = (await call('GET', `/users/${riderId}/wallet`, adminToken)) as { walletBalance: number; walletHistory: { txRef: string; amount: number }[] };
    expect(wallet.walletBalance).toBe(25.5);
    expect(wallet.walletHistory.filter((entry) => entry.txRef === 'AdminCredit').map((entry) => entry.amount)).toEqual([25.5]);
  });

  it('marks a driver’s withdrawal as paid out after confirming, once', async () => {
    const me = (await call('GET', '/auth/me', await apiSignIn('driver5@demo.wayfare'))) as { user: { id: string } };
    await call('POST', `/users/${me.user.id}/wallet/credit`, adminToken, { amount: 40 });
    const driverToken = await apiSignIn('driver5@demo.wayfare');
    const created = (await call('POST', '/withdraws', driverToken, { amount: 15 })) as { withdraw: { id: string; name: string } };
    const { page } = admin;
    await page.getByTestId('panel-menu-withdraws').click();
    await page.waitForURL(/\/withdraws$/);
    const row = page.locator(`[data-testid="withdraws-grid"] [role="row"][data-id="${created.withdraw.id}"]`);
    await row.waitFor(POLL);
    expect(await row.getByTestId('withdraw-processed').getAttribute('data-processed')).toBe('false');
    await row.getByTestId('action-complete').click();
    await page.getByTestId('confirm-dialog').waitFor();
    await screenshot(page, 'panel-withdraw-confirm-desktop');
    await page.getByTestId('confirm-ok').click();
    await expect.poll(async () => row.getByTestId('withdraw-processed').getAttribute('data-processed'), POLL).toBe('true');
    expect(await row.getByTestId('action-complete').isDisabled()).toBe(true);
    await screenshot(page, 'panel-withdraws-desktop');
  });

  it('shows the earnings report for a month and exports the same rows', async () => {
    const { page } = admin;
    await page.getByTestId('panel-menu-earningreports').click();
    await page.waitForURL(/\/earningreports$/);
    await page.getByTestId('earnings-year').click();
    await page.getByRole('option', { name: 'All time' }).click();
    // The trips the earlier files ran are there; the grid shows the route's
    // first page (paged in month, then driver id order; the whole list, which
    // the export writes, is in month, then driver name order).
    type ReportRows = { rows: { driverName: string; driverUId: string; year: number; month: number }[] };
    const json = (await call('GET', '/reports/earnings', adminToken)) as ReportRows;
    const firstPage = (await call('GET', '/reports/earnings?limit=25', adminToken)) as ReportRows;
    const rows = page.locator('[data-testid="earnings-report"] [role="row"][data-id]');
    await expect.poll(() => rows.count(), POLL).toBe(Math.min(json.rows.length, 25));
    if (json.rows.length > 0) {
      const first = firstPage.rows[0];
      expect(await rows.first().getAttribute('data-id')).toBe(`${first.year}-${first.month}-${first.driverUId}`);
    } else {
      await page.getByTestId('panel-table-empty').waitFor();
    }
    await screenshot(page, 'panel-earningreports-desktop');
    const download = page.waitForEvent('download');
    await page.getByTestId('earnings-report-export-xlsx').click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('earnings-report.xlsx');
    const sheet = readXlsx(readFileSync((await file.path())!));
    expect(sheet[0]).toContain('myEarning');
    expect(sheet.length - 1).toBe(json.rows.length);
    // A range of days asks the server for from/until: a range before any trip is empty.
    await page.getByTestId('earnings-from').fill('2020-01-01');
    await page.getByTestId('earnings-until').fill('2020-12-31');
    await page.getByTestId('panel-table-empty').waitFor(POLL);
    await page.getByTestId('earnings-until').fill('2099-12-31');
    await expect.poll(() => rows.count(), POLL).toBe(Math.min(json.rows.length, 25));
  });

  it('shows a fleet admin their drivers’ earnings, and no export in demo mode', async () => {
    const fleet = await newPerson(browser, 'money-fleet');
    await signIn(fleet, 'fleet@demo.wayfare');
    await fleet.page.getByTestId('panel-menu-driverearning').click();
    await fleet.page.getByTestId('driver-year').click();
    await fleet.page.getByRole('option', { name: 'All time' }).click();
    const fleetToken = await apiSignIn('fleet@demo.wayfare');
    const mine = (await call('GET', '/reports/driver-earnings', fleetToken)) as { rows: unknown[] };
    await expect.poll(() => fleet.page.locator('[data-testid="driver-report"] [role="row"][data-id]').count(), POLL).toBe(Math.min(mine.rows.length, 25));
    await screenshot(fleet.page, 'panel-driverearning-fleet');
    expectNoErrors(fleet);
    await fleet.context.close();

    const demo = await newPerson(browser, 'money-demo', { server: demoModeUrl() });
    await signIn(demo, 'admin@demo.wayfare');
    await demo.page.goto('/earningreports');
    await demo.page.getByTestId('earnings-report').waitFor();
    expect(await demo.page.getByTestId('earnings-report-export-xlsx').count()).toBe(0);
    await demo.page.goto('/addtowallet');
    expect(await demo.page.getByTestId('wallet-submit').isDisabled()).toBe(true);
    expectNoErrors(demo);
    await demo.context.close();
  });

  it('fits a phone and speaks Arabic right to left', async () => {
    const person = await newPerson(browser, 'money-phone-ar', { viewport: PHONE, locale: 'ar' });
    await signIn(person, 'admin@demo.wayfare');
    await person.page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await person.page.goto('/withdraws');
    await expect.poll(() => person.page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await person.page.locator('[data-testid="withdraws-grid"] [role="row"][data-id]').first().waitFor(POLL);
    await screenshot(person.page, 'panel-withdraws-phone-ar');
    await person.page.goto('/addtowallet');
    await person.page.getByTestId('wallet-amount').waitFor();
    await screenshot(person.page, 'panel-addtowallet-phone-ar');
    expectNoErrors(person);
    await person.context.close();
  });

  it('left no error in the consoles', () => {
    expectNoErrors(admin);
  });
});
