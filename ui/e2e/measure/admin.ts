// What the measure scripts share: the server they measure and the admin's sign-in.
import type { Page } from 'playwright-core';

export const base = process.env.WAYFARE_URL ?? 'http://127.0.0.1:18080';

async function code(contact: string, after: number) {
  for (let tries = 0; tries < 50; tries++) {
    const answer = (await (await fetch(`${base}/api/v1/dev/outbox?to=${encodeURIComponent(contact)}`)).json()) as { messages: { code: string; at: number }[] };
    const message = answer.messages.find((entry) => entry.at >= after);
    if (message) return message.code;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('no code');
}

/** Signs the demo admin in through the login page; resolves on the dashboard. */
export async function signInAdmin(page: Page) {
  await page.goto(`${base}/login`);
  await page.getByTestId('login-contact').fill('admin@demo.wayfare');
  const asked = Date.now() - 1000;
  await page.getByTestId('login-request').click();
  await page.getByTestId('login-code').fill(await code('admin@demo.wayfare', asked));
  await page.getByTestId('login-verify').click();
  await page.waitForURL(/\/dashboard$/);
}
