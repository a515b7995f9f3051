// The live dispatch console (issue #15) on a city driven by the load
// generator (benches/realtime/load.mjs), as `make city` drives the demo: a
// server of this file's own, seeded with 300 drivers, every one of them
// signed in by the generator and streaming a position a second over
// socket.io-client, and 30 bookings kept waiting, their offers never
// answered, so wave after wave is offered and expires. The console must show
// all of it: every driver moving, every waiting pickup, offer lines, the
// offers and their expiries in the log, the figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, call } from './support/api';
import { launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors } from './support/flows';
import { REPO_DIR, serverBinary, startServer } from './support/server';

const DRIVERS = 300;
const BOOKINGS = 30;
const POLL = { timeout: 60_000, interval: 500 };
const WAIT = { timeout: 60_000 };

async function drawn(page: Page, name: 'drivers' | 'drivers-centre' | 'offer-lines' | 'pickups') {
  const value = await page.getByTestId('dispatch-map').getAttribute(`data-${name}`);
  return name === 'drivers-centre' ? value : Number(value ?? Number.NaN);
}

async function figure(page: Page, key: string) {
  return Number(await page.getByTestId(`figure-${key}`).getByTestId('figure-value').textContent());
}

describe('the live dispatch console on a city driven by the load generator', () => {
  let server: { url: string; stop: () => Promise<void> };
  let load: ChildProcess;
  let loadOutput = '';
  let loadDir = '';
  let browser: Browser;
  let admin: Person;

  beforeAll(async () => {
    server = await startServer(serverBinary(), { WAYFARE_DEMO_SEED__DRIVERS: String(DRIVERS) });
    loadDir = mkdtempSync(join(tmpdir(), 'wayfare-busy-city-'));
    const ready = join(loadDir, 'ready');
    // prettier-ignore
    const args = [
      join(REPO_DIR, 'benches', 'realtime', 'load.mjs'), '--url', server.url, '--drivers', String(DRIVERS), '--rate', String(DRIVERS),
      '--booking-rate', '0', '--keep-bookings', String(BOOKINGS), '--console', '0', '--seconds', '900', '--warmup', '2',
      '--workers', '1', '--ready-file', ready,
    ];
    load = spawn('node', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    load.stdout?.on('data', (chunk) => (loadOutput += chunk));
    load.stderr?.on('data', (chunk) => (loadOutput += chunk));
    const deadline = Date.now() + 240_000;
    while (!existsSync(ready)) {
      if (load.exitCode !== null) throw new Error(`the load generator stopped (${load.exitCode}):\n${loadOutput}`);
      if (Date.now() > deadline) throw new Error(`the load generator was not ready in 240 s:\n${loadOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    browser = await launchBrowser();
    admin = await newPerson(browser, 'admin', { server: server.url });
    await signIn(admin, 'admin@demo.wayfare');
  });

  afterAll(async () => {
    load?.kill('SIGTERM');
    await admin?.context.close();
    await browser?.close();
    await server?.stop();
    if (loadDir) rmSync(loadDir, { recursive: true, force: true });
  });

  it("shows every one of the generator's drivers, moving, and the figures count them", async () => {
    const { page } = admin;
    await page.goto('/dispatch');
    await page.getByTestId('dispatch-console').waitFor(WAIT);
    await expect.poll(() => drawn(page, 'drivers'), POLL).toBe(DRIVERS);
    const before = await drawn(page, 'drivers-centre');
    await expect.poll(() => drawn(page, 'drivers-centre'), POLL).not.toBe(before);
    await expect.poll(() => figure(page, 'online'), POLL).toBe(DRIVERS);
    expect(load.exitCode, `the load generator stopped:\n${loadOutput}`).toBeNull();
  });

  it('shows the waiting bookings, their offer lines, and the offers and expiries in the log', async () => {
    const { page } = admin;
    const token = await apiSignIn('admin@demo.wayfare', server.url);
    const active = (await call('GET', '/dispatch/active', token, undefined, server.url)) as { items: { id: string; status: string }[] };
    const waiting = active.items.filter((booking) => booking.status === 'NEW').length;
    expect(waiting).toBeGreaterThanOrEqual(BOOKINGS - 2);
    // Each waiting booking's pickup is drawn, and the open figure counts them.
    await expect.poll(() => drawn(page, 'pickups'), POLL).toBeGreaterThanOrEqual(waiting);
    await expect.poll(() => figure(page, 'open'), POLL).toBeGreaterThanOrEqual(BOOKINGS - 2);
    // Waves are out: lines from pickups to the drivers offered.
    await expect.poll(() => drawn(page, 'offer-lines'), POLL).toBeGreaterThan(0);
    // Nobody answers, so offers lapse and the next wave goes out.
    await page.locator('[data-testid="log-entry"][data-kind="offered"]').first().waitFor(WAIT);
    await page.locator('[data-testid="log-entry"][data-kind="withdrawn"]').first().waitFor(WAIT);
    const stored = (await call('GET', '/dispatch/log?limit=500', token, undefined, server.url)) as { items: { kind: string; reason?: string }[] };
    expect(stored.items.some((entry) => entry.kind === 'withdrawn' && entry.reason === 'expired')).toBe(true);
    await screenshot(page, 'dispatch-busy-city-desktop-en');
    expectNoErrors(admin);
    expect(load.exitCode, `the load generator stopped:\n${loadOutput}`).toBeNull();
  });
});
