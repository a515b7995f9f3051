// Steps a person does, shared by the browser tests.
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { Person } from './browser';

export async function choosePlace(page: Page, kind: 'pickup' | 'drop', typed: string, option: string) {
  const input = page.getByTestId(`${kind}-input`);
  await input.click();
  await input.fill(typed);
  await page.getByRole('option', { name: new RegExp(option) }).first().click();
  // The suggestion is resolved to coordinates, then shown as the field's text.
  await page.waitForFunction(
    ([testId, text]) => (document.querySelector(`[data-testid="${testId}"]`) as HTMLInputElement | null)?.value.includes(text),
    [`${kind}-input`, option] as const,
  );
}

export async function chooseCarType(page: Page, name: string) {
  await page.getByTestId('cartype-select').click();
  await page.getByTestId(`cartype-${name}`).click();
}

export async function fillBookingForm(page: Page, trip: { pickup: [string, string]; drop: [string, string]; carType: string }) {
  await choosePlace(page, 'pickup', ...trip.pickup);
  await choosePlace(page, 'drop', ...trip.drop);
  await chooseCarType(page, trip.carType);
}

/** Waits until an element's attribute has a value, reloading the page between looks when asked. */
export async function waitForAttribute(
  page: Page,
  testId: string,
  attribute: string,
  expected: string | RegExp,
  { reload = false, timeoutMs = 30_000 }: { reload?: boolean; timeoutMs?: number } = {},
) {
  const deadline = Date.now() + timeoutMs;
  let last: string | null = null;
  while (Date.now() < deadline) {
    const locator = page.getByTestId(testId).first();
    if ((await locator.count()) > 0) {
      last = await locator.getAttribute(attribute);
      if (last !== null && (typeof expected === 'string' ? last === expected : expected.test(last))) return last;
    }
    if (reload) await page.reload();
    await page.waitForTimeout(reload ? 750 : 250);
  }
  throw new Error(`${testId}[${attribute}] stayed ${last}, expected ${expected}`);
}

export function expectNoErrors(...people: Person[]) {
  expect(people.flatMap((person) => person.errors)).toEqual([]);
}

/** The browser logs a refusal the test asked for as a console error: take exactly those out. */
export function expectRefused(person: Person, status: number, path: string) {
  const index = person.errors.findIndex((error) => error.includes(`status of ${status}`) && error.includes(path));
  expect(index, `a ${status} from ${path}`).toBeGreaterThanOrEqual(0);
  person.errors.splice(index, 1);
}

/** Clicks the fifth star (MUI's radios are visually hidden behind their labels). */
export async function rateFiveStars(page: Page) {
  const id = await page.getByTestId('rating-stars').getByLabel('5 stars', { exact: true }).getAttribute('id');
  await page.locator(`label[for="${id}"]`).click();
}
