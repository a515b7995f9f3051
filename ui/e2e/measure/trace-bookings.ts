// The main thread's work, by kind (style, layout, paint, script …), from the
// click on Bookings to the rows drawn.
//   WAYFARE_URL=http://127.0.0.1:18080 npx vite-node e2e/measure/trace-bookings.ts
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS } from '../support/browser-flags';
import { base, signInAdmin } from './admin';

const start = process.env.START ?? '/dashboard';

type TraceEvent = { name: string; ph: string; ts: number; dur?: number; tid: number; pid: number; args?: { data?: { frame?: string } } };

async function main() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_FLAGS });
  const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
  await signInAdmin(page);
  for (let run = 0; run < Number(process.env.RUNS ?? 3); run++) {
    await page.goto(`${base}${start}`);
    await page.getByTestId('panel-menu-bookings').waitFor();
    await page.waitForTimeout(Number(process.env.WAIT ?? 0));
    await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    const t0 = Date.now();
    await page.getByTestId('panel-menu-bookings').click();
    await page.locator('[data-testid="bookings-grid"] [role="row"][data-id], [data-testid="bookings-grid"] [data-testid="panel-table-empty"]').first().waitFor();
    const elapsed = Date.now() - t0;
    const events = (JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] }).traceEvents;
    const main = events.find((event) => event.name === 'thread_name' && (event as unknown as { args: { name: string } }).args.name === 'CrRendererMain');
    const onMain = events.filter((event) => event.ph === 'X' && main && event.tid === main.tid && event.pid === main.pid);
    const totals = new Map<string, number>();
    for (const event of onMain) totals.set(event.name, (totals.get(event.name) ?? 0) + (event.dur ?? 0) / 1000);
    const top = [...totals].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([name, ms]) => `${ms.toFixed(1)} ${name}`).join(' | ');
    const tasks = onMain.filter((event) => event.name === 'RunTask' && (event.dur ?? 0) > 30_000).map((event) => Math.round((event.dur ?? 0) / 1000));
    console.log(`run ${run}: ${elapsed} ms; long tasks ${JSON.stringify(tasks)}\n  ${top}`);
  }
  await browser.close();
}

void main();
