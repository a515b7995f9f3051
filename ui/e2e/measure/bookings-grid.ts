// Measures the admin's bookings grid as a person feels it: from the click to
// the rows drawn in the browser (issue #12: under 300 ms on a database of
// 1,000,000 bookings). Run by benches/panel/run.sh against a server it
// started; prints one JSON line per case with every sample and the median.
//   WAYFARE_URL=http://127.0.0.1:18080 npx vite-node e2e/measure/bookings-grid.ts
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_FLAGS } from '../support/browser-flags';
import { base, signInAdmin } from './admin';

const SAMPLES = Number(process.env.SAMPLES ?? 9);
// FIRST_PAGE_ONLY=1: only the click on Bookings (a small data set may sort to the same rows).
const FIRST_PAGE_ONLY = Boolean(process.env.FIRST_PAGE_ONLY);

/** Arms the page: the next trigger (a click, or Enter in the search) starts
 * the clock; it stops on the first frame after the grid shows a new, settled
 * set of rows. Resolves with the milliseconds between the two. */
async function timed(page: Page, trigger: () => Promise<void>) {
  await page.evaluate(() => {
    const w = window as unknown as { __measure: Promise<number> };
    const rowsKey = () =>
      Array.from(document.querySelectorAll('[data-testid="bookings-grid"] [role="row"][data-id]')).map((row) => row.getAttribute('data-id')).join(',');
    const before = rowsKey();
    w.__measure = new Promise((resolve) => {
      let started = 0;
      const start = () => {
        if (!started) started = performance.now();
      };
      document.addEventListener('pointerdown', start, { capture: true, once: true });
      document.addEventListener('keydown', (event) => event.key === 'Enter' && start(), { capture: true });
      const check = () => {
        if (!started) return;
        const loading = document.querySelector('[data-testid="bookings-grid"] .MuiLinearProgress-root, [data-testid="bookings-grid"] .MuiCircularProgress-root');
        const now = rowsKey();
        if (!loading && now && now !== before) {
          observer.disconnect();
          requestAnimationFrame(() => resolve(performance.now() - started));
        }
      };
      const observer = new MutationObserver(check);
      observer.observe(document.body, { subtree: true, childList: true, attributes: true });
    });
  });
  await trigger();
  return page.evaluate(() => (window as unknown as { __measure: Promise<number> }).__measure);
}

function median(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_FLAGS });
  const page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
  await signInAdmin(page);
  const results: Record<string, number[]> = { first_page: [], sorted_page: [], search: [] };
  for (let index = 0; index < SAMPLES; index++) {
    // A fresh page each time: nothing cached in the browser.
    await page.goto(`${base}/dashboard`);
    await page.getByTestId('panel-menu-bookings').waitFor();
    results.first_page.push(await timed(page, () => page.getByTestId('panel-menu-bookings').click()));
    if (FIRST_PAGE_ONLY) continue;
    // Sorting by customer name, each click flipping the order.
    const header = page.getByRole('columnheader', { name: 'Customer' });
    results.sorted_page.push(await timed(page, () => header.click()));
    const words = ['Smith', 'Fairsonek', 'Charles', 'Johnson', 'Garcia'];
    await page.getByTestId('bookings-grid-search').fill(words[index % words.length]);
    results.search.push(await timed(page, () => page.getByTestId('bookings-grid-search').press('Enter')));
  }
  for (const [name, samples] of Object.entries(results)) {
    if (samples.length === 0) continue;
    console.log(JSON.stringify({ case: name, median_ms: Math.round(median(samples)), max_ms: Math.round(Math.max(...samples)), samples: samples.map(Math.round) }));
  }
  await browser.close();
}

void main();
