// Screenshots of a `wayfare simulate` report for docs/screenshots (issue #35):
// its first screen at desktop and phone widths, and the unmet-demand maps.
// The report is one file that fetches nothing, so it is opened as file://.
//   REPORT=/tmp/sim-denver/report.html npx vite-node e2e/measure/simulation-report.ts
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_FLAGS } from '../support/browser-flags';

const REPO = resolve(import.meta.dirname, '..', '..', '..');
const OUT = join(REPO, 'docs', 'screenshots');
const report = resolve(process.env.REPORT ?? '/tmp/sim-denver/report.html');
if (!existsSync(report)) throw new Error(`no report at ${report}: run wayfare simulate --out first`);

/** What would look wrong on the picture: text wider than the page or than its box. */
async function overflow(page: Page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    if (document.documentElement.scrollWidth > width) found.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    for (const element of Array.from(document.querySelectorAll<HTMLElement>('#conclusion *, header *'))) {
      if (element.scrollWidth > element.clientWidth + 1 && getComputedStyle(element).overflowX === 'visible') {
        found.push(`${element.tagName.toLowerCase()}.${element.className}: ${element.scrollWidth} > ${element.clientWidth}`);
      }
    }
    return found;
  });
}

const chromiumPath = execFileSync(join(REPO, 'scripts', 'ensure-chromium.sh'), { encoding: 'utf8' }).trim();
const browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_FLAGS });
mkdirSync(OUT, { recursive: true });
try {
  for (const [name, viewport] of [
    ['simulation-report-conclusion', { width: 1280, height: 900 }],
    ['simulation-report-conclusion-phone', { width: 390, height: 844 }],
  ] as const) {
    const page = await browser.newPage({ viewport, deviceScaleFactor: 1 });
    await page.goto(pathToFileURL(report).href);
    await page.locator('#conclusion .verdict').waitFor();
    await page.screenshot({ path: join(OUT, `${name}.png`) });
    console.log(JSON.stringify({ name, verdict: await page.locator('#conclusion .verdict').textContent(), overflow: await overflow(page) }));
    await page.close();
  }
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(pathToFileURL(report).href);
  const map = page.locator('section#map');
  await map.scrollIntoViewIfNeeded();
  await map.screenshot({ path: join(OUT, 'simulation-report-map.png') });
  const roads = await page.evaluate(() => document.querySelectorAll('section#map svg path, section#map svg polyline').length);
  console.log(JSON.stringify({ name: 'simulation-report-map', box: await map.boundingBox(), paths: roads }));
} finally {
  await browser.close();
}
