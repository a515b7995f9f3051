// The profile (spec §2 "Profile", §4 "Profile photo upload", §5 "Profile")
// and the driver's licence (spec §6). Two new riders, whose first sign-in
// makes their accounts: rider21@demo.wayfare signs in by e-mail (so the
// e-mail is locked), +14105550421 by phone (so the phone is locked). Driver
// 17 uploads a licence from the console and stays offline, out of dispatch.
// No other browser test uses these accounts.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { loadedImage, pngFile } from './support/files';
import { expectNoErrors } from './support/flows';

const EMAIL_RIDER = 'rider21@demo.wayfare';
const PHONE_RIDER = '+14105550421';
const NEW_MOBILE = '+14105550422';

/** Resolves with the answer to the next call of `method` on `path`. */
function nextCall(page: Page, method: string, path: string) {
  return page.waitForResponse((response) => response.request().method() === method && new URL(response.url()).pathname === `/api/v1${path}`);
}

async function helperText(page: Page, testId: string) {
  return page.getByTestId(testId).evaluate((input) => {
    const id = input.getAttribute('aria-describedby');
    return id ? (document.getElementById(id)?.textContent ?? '') : '';
  });
}

describe('the profile', () => {
  let browser: Browser;
  let rider: Person;
  let phoneRider: Person;
  let driver: Person;

  beforeAll(async () => {
    browser = await launchBrowser();
    rider = await newPerson(browser, 'rider21');
    phoneRider = await newPerson(browser, 'phone-rider');
    driver = await newPerson(browser, 'driver17');
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('shows a new e-mail rider the e-mail locked and the user type read-only', async () => {
    await signIn(rider, EMAIL_RIDER);
    const page = rider.page;
    await page.goto('/profile');
    await page.getByTestId('profile-form').waitFor();
    const email = page.getByTestId('profile-email');
    expect(await email.inputValue()).toBe(EMAIL_RIDER);
    expect(await email.isEditable()).toBe(false);
    expect(await helperText(page, 'profile-email')).toBe('This is how you sign in, so it cannot be changed here.');
    expect(await page.getByTestId('profile-mobile').isEditable()).toBe(true);
    const userType = page.getByTestId('profile-user-type');
    expect(await userType.inputValue()).toBe('Rider');
    expect(await userType.isEditable()).toBe(false);
    expect(await page.getByTestId('profile-name').textContent()).toBe('Your name');
    await screenshot(page, '40-profile-new-rider');
  });

  it('uploads a photo and saves the names, and shows both after a reload', async () => {
    const page = rider.page;
    const uploaded = nextCall(page, 'POST', '/users/me/profile-image');
    await page.getByTestId('profile-photo-input').setInputFiles(pngFile('me.png', [200, 40, 40]));
    expect((await uploaded).status()).toBe(200);
    expect(await page.getByTestId('profile-message').textContent()).toBe('Your profile was updated.');
    const shown = await loadedImage(page, 'profile-photo');
    expect(new URL(shown.src).pathname).toMatch(/^\/api\/v1\/files\/[0-9a-f-]{36}$/);

    await page.getByTestId('profile-first-name').fill('Nadia');
    await page.getByTestId('profile-last-name').fill('Haddad');
    const saved = nextCall(page, 'PATCH', '/users/me');
    await page.getByTestId('profile-submit').click();
    expect((await saved).request().postDataJSON()).toMatchObject({ firstName: 'Nadia', lastName: 'Haddad' });
    await page.getByTestId('profile-message').filter({ hasText: 'Your profile was updated.' }).waitFor();
    expect(await page.getByTestId('profile-name').textContent()).toBe('Nadia Haddad');

    await page.reload();
    await page.getByTestId('profile-form').waitFor();
    expect(await page.getByTestId('profile-first-name').inputValue()).toBe('Nadia');
    expect(await page.getByTestId('profile-last-name').inputValue()).toBe('Haddad');
    const reloaded = await loadedImage(page, 'profile-photo');
    expect(reloaded.src).toBe(shown.src);
    expect(reloaded.naturalWidth).toBe(24);
    await screenshot(page, '41-profile-saved');
  });

  it("asks 'phone_no_update' before changing the phone: cancel keeps it, yes saves it", async () => {
    const page = rider.page;
    let patches = 0;
    page.on('request', (request) => {
      if (request.method() === 'PATCH' && new URL(request.url()).pathname === '/api/v1/users/me') patches += 1;
    });
    await page.getByTestId('profile-mobile').fill(NEW_MOBILE);
    await page.getByTestId('profile-submit').click();
    expect(await page.getByTestId('alert-message').textContent()).toBe(
      'Changing your mobile number changes how you sign in. Do you want to continue?',
    );
    await screenshot(page, '42-profile-phone-confirm');
    await page.getByTestId('alert-dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('alert-dialog').waitFor({ state: 'detached' });
    expect(patches).toBe(0);

    await page.getByTestId('profile-submit').click();
    const saved = nextCall(page, 'PATCH', '/users/me');
    await page.getByTestId('alert-confirm').click();
    expect((await saved).request().postDataJSON()).toMatchObject({ mobile: NEW_MOBILE });
    expect(patches).toBe(1);
    expect(new URL(page.url()).pathname).toBe('/profile');
    await page.reload();
    await page.getByTestId('profile-form').waitFor();
    expect(await page.getByTestId('profile-mobile').inputValue()).toBe(NEW_MOBILE);
  });

  it('switches the interface to Arabic, right to left, and keeps it after a reload', async () => {
    const page = rider.page;
    await page.getByTestId('profile-language').click();
    await page.getByTestId('profile-language-ar').click();
    const saved = nextCall(page, 'PATCH', '/users/me');
    await page.getByTestId('profile-submit').click();
    expect((await saved).request().postDataJSON()).toMatchObject({ lang: { langLocale: 'ar' } });
    await page.waitForFunction(() => document.documentElement.dir === 'rtl');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ar');
    expect(await page.getByTestId('profile-submit').textContent()).toBe('حفظ التغييرات');
    expect(await page.getByTestId('profile-message').textContent()).toBe('تم تحديث ملفك الشخصي.');

    await page.reload();
    await page.getByTestId('profile-form').waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('ملفي الشخصي');
    // The choice is the account's, not only this browser's: when the browser
    // forgets its own choice, the signed-in user's language still wins.
    await page.evaluate(() => window.localStorage.removeItem('wayfare.lang'));
    await page.reload();
    await page.waitForFunction(() => document.documentElement.dir === 'rtl' && document.documentElement.lang === 'ar');
    await page.getByTestId('profile-form').waitFor();
    expect(await page.getByTestId('profile-language').textContent()).toBe('العربية');
    await screenshot(page, '43-profile-arabic');
  });

  it('locks the phone a rider signed in with, and asks for a proper e-mail', async () => {
    await signIn(phoneRider, PHONE_RIDER);
    const page = phoneRider.page;
    let patches = 0;
    page.on('request', (request) => {
      if (request.method() === 'PATCH' && new URL(request.url()).pathname === '/api/v1/users/me') patches += 1;
    });
    await page.goto('/profile');
    await page.getByTestId('profile-form').waitFor();
    const mobile = page.getByTestId('profile-mobile');
    expect(await mobile.inputValue()).toBe(PHONE_RIDER);
    expect(await mobile.isEditable()).toBe(false);
    expect(await helperText(page, 'profile-mobile')).toBe('This is how you sign in, so it cannot be changed here.');
    expect(await page.getByTestId('profile-email').isEditable()).toBe(true);

    await page.getByTestId('profile-first-name').fill('Karim');
    await page.getByTestId('profile-last-name').fill('Saleh');
    await page.getByTestId('profile-email').fill('karim@mail');
    await page.getByTestId('profile-submit').click();
    await page.getByText('Please enter a valid e-mail address.').waitFor();
    expect(await helperText(page, 'profile-email')).toBe('Please enter a valid e-mail address.');
    expect(await page.getByTestId('profile-email').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, '44-profile-proper-email');
    expect(patches).toBe(0);

    await page.getByTestId('profile-email').fill('karim.saleh@mail.example');
    const saved = nextCall(page, 'PATCH', '/users/me');
    await page.getByTestId('profile-submit').click();
    const body = (await saved).request().postDataJSON();
    expect(body).toMatchObject({ firstName: 'Karim', lastName: 'Saleh', email: 'karim.saleh@mail.example' });
    expect(body).not.toHaveProperty('mobile');
    // A locked phone is never "changed", so no phone_no_update question.
    expect(await page.getByTestId('alert-dialog').count()).toBe(0);
    await page.getByTestId('profile-message').filter({ hasText: 'Your profile was updated.' }).waitFor();
    await page.reload();
    await page.getByTestId('profile-form').waitFor();
    expect(await page.getByTestId('profile-email').inputValue()).toBe('karim.saleh@mail.example');
    expect(await page.getByTestId('profile-name').textContent()).toBe('Karim Saleh');
  });

  it('lets a driver upload a driving licence from the console and see it', async () => {
    await signIn(driver, 'driver17@demo.wayfare');
    const page = driver.page;
    expect(new URL(page.url()).pathname).toBe('/bookings');
    await page.getByTestId('driver-console').waitFor();
    expect(await page.getByTestId('licence-missing').textContent()).toBe('No driving licence uploaded yet.');
    const uploaded = nextCall(page, 'POST', '/users/me/license-image');
    await page.getByTestId('licence-input').setInputFiles(pngFile('licence.png', [30, 90, 200], 32));
    expect((await uploaded).status()).toBe(200);
    expect(await page.getByTestId('licence-message').textContent()).toBe('Your driving licence was saved.');
    const shown = await loadedImage(page, 'licence-image');
    expect(new URL(shown.src).pathname).toMatch(/^\/api\/v1\/files\/[0-9a-f-]{36}$/);
    expect(shown.naturalWidth).toBe(32);
    await screenshot(page, '45-driver-licence');
    await page.reload();
    expect((await loadedImage(page, 'licence-image')).src).toBe(shown.src);
    expect(await page.getByTestId('driver-console').getAttribute('data-online')).toBe('false');
  });

  it('no errors reached any browser console', () => {
    expectNoErrors(rider, phoneRider, driver);
  });
});
