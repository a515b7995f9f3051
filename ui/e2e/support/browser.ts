// One chromium per test file; a context per person, each collecting the
// console errors and uncaught page errors that the tests assert are absent.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { CHROMIUM_FLAGS } from './browser-flags';

export { CHROMIUM_FLAGS };

const SCREENSHOTS = resolve(import.meta.dirname, '..', 'screenshots');
const DOCS_SCREENSHOTS = resolve(import.meta.dirname, '..', '..', '..', 'docs', 'screenshots');

export function baseUrl() {
  return inject('baseUrl');
}

/** The second server, whose platform is in demo mode (critical edits off). */
export function demoModeUrl() {
  return inject('demoModeUrl');
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: inject('chromiumPath'), args: CHROMIUM_FLAGS });
}

export interface Person {
  name: string;
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors seen so far. */
  errors: string[];
}

export async function newPerson(
  browser: Browser,
  name: string,
  options: { viewport?: { width: number; height: number }; locale?: string; server?: string } = {},
): Promise<Person> {
  const context = await browser.newContext({
    baseURL: options.server ?? baseUrl(),
    viewport: options.viewport ?? { width: 1366, height: 900 },
    locale: options.locale ?? 'en-US',
    timezoneId: 'America/New_York',
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${name} console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`${name} page error: ${error.message}`));
  return { name, context, page, errors };
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Let dialogs finish their entrance, and maps draw every tile they asked for
  // (software WebGL here can take seconds): a screenshot of half a map says nothing.
  await page.waitForTimeout(600);
  await page
    .waitForFunction(() => Array.from(document.querySelectorAll('[data-renderer="maplibre"]')).every((map) => map.getAttribute('data-map-idle') === 'true'), undefined, {
      timeout: 20_000,
    })
    .catch(() => console.warn(`screenshot ${name}: a map was still loading after 20 s`));
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/** Through `screenshot` (it waits for every map's tiles and keeps the run's copy), then into docs/screenshots. */
export async function docsScreenshot(page: Page, name: string) {
  await screenshot(page, name);
  mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(DOCS_SCREENSHOTS, `${name}.png`) });
}

/** The newest sign-in code sent to a contact, from the dev outbox. */
export async function latestCode(contact: string, after = 0, server = baseUrl()): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const response = await fetch(`${server}/api/v1/dev/outbox?to=${encodeURIComponent(contact)}`);
    const body = (await response.json()) as { messages: { code: string; at: number }[] };
    const message = body.messages.find((entry) => entry.at >= after);
    if (message) return message.code;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no code for ${contact}`);
}

/** Signs in through the login page and the dev outbox; resolves on the page the user lands on. */
export async function signIn(person: Person, contact: string) {
  const { page } = person;
  await page.goto('/login');
  await page.getByTestId('login-contact').fill(contact);
  const asked = Date.now() - 1000;
  await page.getByTestId('login-request').click();
  await page.getByTestId('login-code').waitFor();
  const code = await latestCode(contact, asked, new URL(page.url()).origin);
  await page.getByTestId('login-code').fill(code);
  await page.getByTestId('login-verify').click();
  await page.waitForURL((url) => url.pathname !== '/login');
}
