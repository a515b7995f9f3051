// The public site, the guards, the Book Later rule, Arabic and a phone screen.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPerson, screenshot, signIn } from './support/browser';
import { expectNoErrors, fillBookingForm, waitForAttribute } from './support/flows';

const PHONE = { width: 390, height: 844 };
const DOCS_SCREENSHOTS = resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots');

describe('the site', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('greets a visitor with the booking form, titled with the app name, and colours the header after 400 px', async () => {
    const visitor = await newPerson(browser, 'visitor');
    const page = visitor.page;
    await page.goto('/');
    await page.getByTestId('booking-form').waitFor();
    expect(await page.title()).toBe('Wayfare');
    expect(await page.getByTestId('nav-account').textContent()).toBe('Login or sign up');
    await screenshot(page, '20-landing-visitor');
    expect(await page.getByTestId('app-header').getAttribute('data-scrolled')).toBe('false');
    await page.evaluate(() => window.scrollTo({ top: 300, behavior: 'instant' }));
    await page.waitForTimeout(200);
    expect(await page.getByTestId('app-header').getAttribute('data-scrolled')).toBe('false');
    await page.evaluate(() => window.scrollTo({ top: 500, behavior: 'instant' }));
    await waitForAttribute(page, 'app-header', 'data-scrolled', 'true');
    await screenshot(page, '21-landing-scrolled');
    await page.getByTestId('book-button').click();
    expect(await page.getByTestId('alert-message').textContent()).toBe('Please log in to book a ride.');
    expectNoErrors(visitor);
    await visitor.context.close();
  });

  it('shows the about, privacy and contact pages with the company details', async () => {
    const visitor = await newPerson(browser, 'visitor');
    const page = visitor.page;
    await page.goto('/about-us');
    await page.getByTestId('about-page').waitFor();
    await page.goto('/privacy-policy');
    await page.getByTestId('account-deletion').waitFor();
    expect(await page.getByTestId('privacy-email').textContent()).toBe('hello@demo.wayfare');
    await screenshot(page, '22-privacy');
    await page.goto('/contact-us');
    const contact = (await page.getByTestId('contact-page').textContent()) ?? '';
    for (const detail of ['Wayfare Demo', '401 Light St', 'hello@demo.wayfare', '+1 410 555 0100']) expect(contact).toContain(detail);
    await screenshot(page, '23-contact');
    expectNoErrors(visitor);
    await visitor.context.close();
  });

  it('sends a visitor who opens /bookings to /login, and tells them what the contact field needs', async () => {
    const visitor = await newPerson(browser, 'visitor');
    const page = visitor.page;
    await page.goto('/bookings');
    await page.waitForURL('**/login');
    await page.getByTestId('login-request').click();
    await page.getByText('Please enter your e-mail or mobile number.').waitFor();
    await page.getByTestId('login-contact').fill('rider@');
    await page.getByTestId('login-request').click();
    await page.getByText('Please enter a valid e-mail address.').waitFor();
    await screenshot(page, '24-login-validation');
    expectNoErrors(visitor);
    await visitor.context.close();
  });

  it('installs on a phone: the page links a web app manifest whose icons load', async () => {
    const visitor = await newPerson(browser, 'installer');
    await visitor.page.goto('/');
    const href = await visitor.page.locator('link[rel="manifest"]').getAttribute('href');
    expect(href).toBe('/manifest.webmanifest');
    const manifest = await visitor.page.evaluate(async (path) => {
      const response = await fetch(path!);
      return { type: response.headers.get('content-type'), body: await response.json() };
    }, href);
    expect(manifest.type).toContain('manifest+json');
    expect(manifest.body).toMatchObject({ name: 'Wayfare', start_url: '/', display: 'standalone' });
    const sizes = await visitor.page.evaluate(async (icons: { src: string; sizes: string; type: string }[]) => {
      const loaded = await Promise.all(
        icons.filter((icon) => icon.type === 'image/png').map(async (icon) => {
          const image = new Image();
          image.src = icon.src;
          await image.decode();
          return `${image.naturalWidth}x${image.naturalHeight}`;
        }),
      );
      return loaded;
    }, manifest.body.icons);
    expect(sizes).toEqual(['192x192', '512x512']);
    // The Web Push service worker installs and runs in a real browser.
    const worker = await visitor.page.evaluate(async () => {
      const registration = await navigator.serviceWorker.register('/sw.js');
      const ready = await navigator.serviceWorker.ready;
      return { scope: registration.scope, script: ready.active?.scriptURL ?? '' };
    });
    expect(new URL(worker.script).pathname).toBe('/sw.js');
    expect(new URL(worker.scope).pathname).toBe('/');
    expectNoErrors(visitor);
    await visitor.context.close();
  });

  it('shows a page for an unknown path, in the site layout, translated, with a link home, the panel\'s mistyped paths too', async () => {
    const visitor = await newPerson(browser, 'lost', { viewport: PHONE });
    const page = visitor.page;
    await page.goto('/no-such-page');
    await page.getByTestId('not-found').waitFor();
    // Not sent to the login page: the address stays, and the page names it.
    expect(new URL(page.url()).pathname).toBe('/no-such-page');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    expect(await page.getByTestId('not-found-path').textContent()).toBe('/no-such-page');
    await page.getByTestId('app-header').waitFor();
    await page.getByTestId('not-found-home').click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByTestId('booking-form').waitFor();

    // In Arabic, right to left, on a phone.
    await page.evaluate(() => window.localStorage.setItem('wayfare.lang', 'ar'));
    await page.goto('/panel/unknown');
    await page.getByTestId('not-found').waitFor();
    await page.waitForFunction(() => document.documentElement.dir === 'rtl');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('الصفحة غير موجودة');
    expect(await page.getByTestId('not-found-home').textContent()).toBe('الذهاب إلى الصفحة الرئيسية');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
    await page.waitForTimeout(600);
    await page.screenshot({ path: resolve(DOCS_SCREENSHOTS, 'not-found-phone-ar.png') });
    expectNoErrors(visitor);
    await visitor.context.close();

    // An admin who mistypes a panel path gets it too, with the way back to the dashboard.
    const admin = await newPerson(browser, 'lost-admin');
    await signIn(admin, 'admin@demo.wayfare');
    await admin.page.goto('/dashbord');
    await admin.page.getByTestId('not-found-dashboard').click();
    await admin.page.waitForURL(/\/dashboard$/);
    await admin.page.getByTestId('panel-page').waitFor();
    expectNoErrors(admin);
    await admin.context.close();
  });

  it('lands a rider who opens /dashboard on /login', async () => {
    const rider = await newPerson(browser, 'rider3');
    await signIn(rider, 'rider3@demo.wayfare');
    await rider.page.goto('/dashboard');
    await rider.page.waitForURL('**/login');
    await rider.page.getByTestId('access-denied').waitFor();
    expect(new URL(rider.page.url()).pathname).toBe('/login');
    expectNoErrors(rider);
    await rider.context.close();
  });

  it('lands an admin on the dashboard after signing in', async () => {
    const admin = await newPerson(browser, 'admin');
    await signIn(admin, 'admin@demo.wayfare');
    expect(new URL(admin.page.url()).pathname).toBe('/dashboard');
    // The dashboard's cards fill from the earnings route.
    await admin.page.getByTestId('earning-total-amount').filter({ hasText: /\d/ }).waitFor();
    await admin.page.getByTestId('live-drivers').waitFor();
    await screenshot(admin.page, '25-admin-dashboard');
    expectNoErrors(admin);
    await admin.context.close();
  });

  it('refuses a Book Later trip 10 minutes ahead with past_booking_error', async () => {
    const rider = await newPerson(browser, 'rider2');
    await signIn(rider, 'rider2@demo.wayfare');
    const page = rider.page;
    await fillBookingForm(page, { pickup: ['Fort', 'Fort McHenry'], drop: ['Johns', 'Johns Hopkins Hospital'], carType: 'Comfort' });
    await page.getByTestId('booking-type-select').click();
    await page.getByTestId('book-later-option').click();
    const tenMinutes = await page.evaluate(() => {
      const date = new Date(Date.now() + 10 * 60_000);
      const pad = (value: number) => String(value).padStart(2, '0');
      return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
    });
    await page.getByTestId('trip-date').fill(tenMinutes);
    await page.getByTestId('book-button').click();
    expect(await page.getByTestId('alert-message').textContent()).toBe('A Book Later trip must be at least 15 minutes from now.');
    await screenshot(page, '26-book-later-too-soon');
    expectNoErrors(rider);
    await rider.context.close();
  });

  it('writes the Arabic interface right to left', async () => {
    const visitor = await newPerson(browser, 'arabic');
    const page = visitor.page;
    await page.goto('/');
    await page.getByTestId('language-select').click();
    await page.getByTestId('language-ar').click();
    await page.waitForFunction(() => document.documentElement.dir === 'rtl');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ar');
    expect(await page.getByTestId('nav-account').textContent()).toBe('تسجيل الدخول أو إنشاء حساب');
    // The form's fields start at the right.
    const box = await page.getByTestId('pickup-input').boundingBox();
    const form = await page.getByTestId('booking-form').boundingBox();
    expect(box && form && box.x + box.width > form.x + form.width - 80).toBe(true);
    await screenshot(page, '27-landing-arabic');
    await page.goto('/login');
    await page.getByTestId('login-request').click();
    await page.getByText('يرجى إدخال بريدك الإلكتروني أو رقم جوالك.').waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await screenshot(page, '28-login-arabic');
    expectNoErrors(visitor);
    await visitor.context.close();
  });

  it('works on a phone screen, where a rider books and cancels with a reason', async () => {
    const rider = await newPerson(browser, 'phone', { viewport: PHONE });
    const page = rider.page;
    await page.goto('/');
    await page.getByTestId('booking-form').waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, '29-phone-landing');
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'About us' }).last().waitFor();
    await screenshot(page, '30-phone-menu');
    await page.keyboard.press('Escape');
    await signIn(rider, 'rider4@demo.wayfare');
    await page.goto('/bookings');
    await page.getByTestId('bookings-empty').waitFor();
    await screenshot(page, '31-phone-bookings-empty');
    await page.goto('/');
    await fillBookingForm(page, { pickup: ['Fort', 'Fort McHenry'], drop: ['Fells', 'Fells Point'], carType: 'XL' });
    await page.getByTestId('book-button').click();
    await page.getByTestId('confirm-booking').click();
    await page.getByTestId('go-to-booking').click();
    await waitForAttribute(page, 'trip-view', 'data-status', 'NEW');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, '32-phone-trip');
    // The rider changes their mind: cancel with a reason.
    await page.getByTestId('cancel-booking').click();
    await page.getByLabel('Changed my plans').check();
    await page.getByTestId('cancel-confirm').click();
    await waitForAttribute(page, 'trip-view', 'data-status', 'CANCELLED');
    expect(await page.getByTestId('trip-view').textContent()).toContain('This booking was cancelled: Changed my plans');
    await screenshot(page, '33-phone-cancelled');
    expectNoErrors(rider);
    await rider.context.close();
  });
});
