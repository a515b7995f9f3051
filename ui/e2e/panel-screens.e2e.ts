// Every panel screen an admin and a fleet admin can open, on a desktop and a
// phone, in English and in Arabic (issue #12, #13): each one loads without an
// error, fits the width it is drawn at (nothing scrolls sideways), mirrors
// in Arabic, and leaves a screenshot under e2e/screenshots/.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPerson, screenshot, signIn } from './support/browser';
import { expectNoErrors } from './support/flows';

const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
// The admin's side menu, in its order (src/components/panel/panel-menu.ts).
const ALL_SCREENS = [
  '/dashboard', '/dispatch', '/sos', '/bookings', '/addbookings', '/riders', '/drivers', '/fleetadmins', '/alladmin', '/cartypes',
  '/cancelreasons', '/promos', '/notifications', '/earningreports', '/moneyowed', '/driverearning', '/addtowallet', '/withdraws',
  '/appinfo', '/settings', '/paymentsettings', '/languagesetting', '/profile',
];
const FLEET_SCREENS = ['/dashboard', '/dispatch', '/sos', '/bookings', '/drivers', '/driverearning', '/earningreports', '/moneyowed', '/profile'];

/** Opens a screen and waits until it has drawn its data (no spinner left). */
async function open(page: Page, path: string) {
  await page.goto(path);
  await page.getByTestId('panel-page').waitFor({ timeout: 15_000 });
  await page.waitForFunction(() => document.querySelectorAll('[role="progressbar"]').length === 0, undefined, { timeout: 15_000 });
}

/** How far the page scrolls sideways: 0 when it fits its width. */
function sidewaysOverflow(page: Page) {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

describe('every panel screen', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
  });

  const cases = [
    { who: 'admin', contact: 'admin@demo.wayfare', screens: ALL_SCREENS },
    { who: 'fleet', contact: 'fleet@demo.wayfare', screens: FLEET_SCREENS },
  ];
  for (const { who, contact, screens } of cases) {
    for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      for (const lang of ['en', 'ar'] as const) {
        it(`shows a ${who} every screen on a ${width} in ${lang === 'en' ? 'English' : 'Arabic'}`, async () => {
          const person = await newPerson(browser, `${who}-${width}-${lang}`, { viewport, locale: lang });
          await signIn(person, contact);
          const { page } = person;
          await page.evaluate((chosen) => window.localStorage.setItem('wayfare.lang', chosen), lang);
          const overflowing: string[] = [];
          for (const path of screens) {
            await open(page, path);
            expect(await page.evaluate(() => document.documentElement.dir)).toBe(lang === 'ar' ? 'rtl' : 'ltr');
            if ((await sidewaysOverflow(page)) > 1) overflowing.push(path);
            await screenshot(page, `screen-${who}-${path.slice(1)}-${width}-${lang}`);
          }
          expect(overflowing).toEqual([]);
          // The fleet admin's menu holds only the fleet's screens.
          if (who === 'fleet' && width === 'desktop') {
            const entries = await page.locator('[data-testid^="panel-menu-"]').evaluateAll((links) =>
              links.map((link) => link.getAttribute('data-testid')),
            );
            expect(entries.filter((id) => id !== 'panel-menu-home' && id !== 'panel-menu-logout' && id !== 'panel-menu-open').sort()).toEqual(
              FLEET_SCREENS.map((path) => `panel-menu-${path.slice(1)}`).sort(),
            );
          }
          expectNoErrors(person);
          await person.context.close();
        });
      }
    }
  }
});
