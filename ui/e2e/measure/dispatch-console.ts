// Measures the live dispatch console in Chromium (issue #15, docs/benchmarks.md
// "The live dispatch console"), against a server whose drivers are streaming
// (benches/console/run.sh starts both). Prints one JSON line per figure:
// - feed_update: per `drivers` message, the main-thread time to apply it to
//   the store plus the first frame that draws it (setData), read from the
//   page's own User Timing measures (src/features/dispatch/lib/feed-measure.ts,
//   switched on by `window.__wayfareMeasure`); target under 50 ms;
// - pan_fps: frames per second (requestAnimationFrame callbacks) while the
//   map is dragged to and fro for PAN_SECONDS; target 30 or more; and
//   still_fps, the same with no input, to tell drawing from panning;
// - heap: the JS heap after a garbage collection (CDP), WARMUP_SECONDS after
//   the drivers are drawn (the event log fills to its 500 entries first) and
//   again MEMORY_MINUTES later, sampled every minute; target no growth
//   beyond 10%.
//   WAYFARE_URL=http://127.0.0.1:18200 DRIVERS=200 MEMORY_MINUTES=1 npx vite-node e2e/measure/dispatch-console.ts
import { chromium, type CDPSession, type Page } from 'playwright-core';
import { CHROMIUM_FLAGS } from '../support/browser-flags';
import { base, signInAdmin } from './admin';

/** Drivers the map must show before measuring (all of the load's, or most). */
const DRIVERS = Number(process.env.DRIVERS ?? 1);
const FEED_SECONDS = Number(process.env.FEED_SECONDS ?? 30);
const PAN_SECONDS = Number(process.env.PAN_SECONDS ?? 10);
const MEMORY_MINUTES = Number(process.env.MEMORY_MINUTES ?? 30);
const WARMUP_SECONDS = Number(process.env.WARMUP_SECONDS ?? 60);
/** A directory for the map before and after panning, to see that the drags moved it. */
const SCREENSHOTS = process.env.SCREENSHOTS ?? '';
// The names the page measures under (lib/feed-measure.ts; not imported, so
// this script does not pull the app's modules).
const FEED_MEASURE = 'wayfare:drivers-feed';
const DRAW_MEASURE = 'wayfare:drivers-draw';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number) => Math.round(value * 100) / 100;

function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number) => (sorted.length ? round(sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]) : null);
  return { count: sorted.length, p50_ms: at(0.5), p90_ms: at(0.9), p99_ms: at(0.99), max_ms: sorted.length ? round(sorted[sorted.length - 1]) : null };
}

function print(figure: Record<string, unknown>) {
  console.log(JSON.stringify(figure));
}

async function mapAttribute(page: Page, name: string) {
  return page.getByTestId('dispatch-map').getAttribute(name);
}

/** Used JS heap after a full collection, and the DOM's counts. */
async function heap(cdp: CDPSession) {
  await cdp.send('HeapProfiler.collectGarbage');
  const usage = await cdp.send('Runtime.getHeapUsage');
  const dom = await cdp.send('Memory.getDOMCounters');
  return { used_mb: round(usage.usedSize / 2 ** 20), total_mb: round(usage.totalSize / 2 ** 20), nodes: dom.nodes, listeners: dom.jsEventListeners };
}

/** Per message: the store's handling plus the first frame drawing it. */
async function feedUpdate(page: Page) {
  await page.evaluate(() => performance.clearMeasures());
  await sleep(FEED_SECONDS * 1000);
  const entries = await page.evaluate(
    ([feedName, drawName]) => {
      const pick = (name: string) =>
        performance.getEntriesByName(name, 'measure').map((entry) => ({ start: entry.startTime, duration: entry.duration, detail: (entry as PerformanceMeasure).detail as { drivers: number; message: number } }));
      return { feed: pick(feedName), draw: pick(drawName) };
    },
    [FEED_MEASURE, DRAW_MEASURE],
  );
  const draws = new Map(entries.draw.map((entry) => [entry.detail.message, entry]));
  const applied: number[] = [];
  const waits: number[] = [];
  for (const feed of entries.feed) {
    const draw = draws.get(feed.detail.message);
    if (!draw) continue; // a later message came before a frame drew this one
    applied.push(feed.duration + draw.duration);
    waits.push(draw.start - (feed.start + feed.duration));
  }
  print({
    figure: 'feed_update',
    target: 'under 50 ms per message',
    seconds: FEED_SECONDS,
    messages: entries.feed.length,
    drawn_messages: applied.length,
    drivers_per_message: entries.feed.at(-1)?.detail.drivers ?? 0,
    update: stats(applied),
    store: stats(entries.feed.map((entry) => entry.duration)),
    draw: stats(entries.draw.map((entry) => entry.duration)),
    wait_for_frame: stats(waits),
  });
  await page.evaluate(() => performance.clearMeasures());
}

async function startCountingFrames(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __frames: number[]; __counting: boolean };
    w.__frames = [];
    w.__counting = true;
    const count = (time: number) => {
      if (!w.__counting) return;
      w.__frames.push(time);
      requestAnimationFrame(count);
    };
    requestAnimationFrame(count);
  });
}

/** Stops counting and prints the figure. */
async function printFrames(page: Page, figure: string, extra: Record<string, unknown>) {
  const frames = await page.evaluate(() => {
    const w = window as unknown as { __frames: number[]; __counting: boolean };
    w.__counting = false;
    return w.__frames;
  });
  const gaps = frames.slice(1).map((time, index) => time - frames[index]);
  const span = frames.length > 1 ? (frames[frames.length - 1] - frames[0]) / 1000 : 0;
  print({
    figure,
    ...extra,
    seconds: round(span),
    frames: frames.length,
    fps: span > 0 ? round((frames.length - 1) / span) : 0,
    frame_interval: stats(gaps),
    frames_over_50_ms: gaps.filter((gap) => gap > 50).length,
  });
}

/** Frames a second with nobody touching the map (the drivers still move). */
async function stillFps(page: Page) {
  await startCountingFrames(page);
  await sleep(PAN_SECONDS * 1000);
  await printFrames(page, 'still_fps', {});
}

/** Drags the map to and fro for PAN_SECONDS, counting animation frames. */
async function panFps(page: Page) {
  const canvas = page.locator('[data-testid="dispatch-map"] canvas.maplibregl-canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('no map canvas');
  if (SCREENSHOTS) await page.getByTestId('dispatch-map').screenshot({ path: `${SCREENSHOTS}/console-before-pan.png` });
  await startCountingFrames(page);
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const reach = Math.min(box.width, box.height) / 4;
  const end = Date.now() + PAN_SECONDS * 1000;
  let drags = 0;
  while (Date.now() < end) {
    // One drag: 30 steps of a few pixels each about a frame apart, alternating direction.
    const direction = drags % 2 === 0 ? 1 : -1;
    const angle = (drags * Math.PI) / 5;
    await page.mouse.move(centre.x - direction * reach * Math.cos(angle), centre.y - direction * reach * Math.sin(angle));
    await page.mouse.down();
    for (let step = 1; step <= 30 && Date.now() < end; step++) {
      const fraction = step / 30;
      await page.mouse.move(centre.x + direction * reach * Math.cos(angle) * (2 * fraction - 1), centre.y + direction * reach * Math.sin(angle) * (2 * fraction - 1));
      await sleep(16);
    }
    await page.mouse.up();
    drags++;
  }
  await printFrames(page, 'pan_fps', { target: '30 or more', drags });
  if (SCREENSHOTS) await page.getByTestId('dispatch-map').screenshot({ path: `${SCREENSHOTS}/console-after-pan.png` });
}

async function main() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_FLAGS });
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  // Switches on the console's User Timing measures before the app starts.
  await context.addInitScript(() => {
    (window as unknown as { __wayfareMeasure: boolean }).__wayfareMeasure = true;
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await signInAdmin(page);
  await page.goto(`${base}/dispatch`);
  const map = page.getByTestId('dispatch-map');
  await map.waitFor();
  const renderer = await mapAttribute(page, 'data-renderer');
  if (renderer !== 'maplibre') throw new Error(`the console draws no map here (data-renderer=${renderer}): this browser has no WebGL`);
  const shownAt = Date.now();
  while (Number((await mapAttribute(page, 'data-drivers')) ?? 0) < DRIVERS) {
    if (Date.now() - shownAt > 120_000) throw new Error(`the map shows ${await mapAttribute(page, 'data-drivers')} drivers after 2 minutes, not ${DRIVERS}`);
    await sleep(250);
  }
  print({ figure: 'ready', drivers: Number(await mapAttribute(page, 'data-drivers')), pickups: Number(await mapAttribute(page, 'data-pickups')), offer_lines: Number(await mapAttribute(page, 'data-offer-lines')), seconds_to_drivers: round((Date.now() - shownAt) / 1000) });
  await sleep(WARMUP_SECONDS * 1000);
  const start = await heap(cdp);
  const started = Date.now();
  await feedUpdate(page);
  await stillFps(page);
  await panFps(page);
  const samples = [{ minute: round((Date.now() - started) / 60_000), ...(await heap(cdp)) }];
  const finish = started + MEMORY_MINUTES * 60_000;
  while (Date.now() < finish) {
    await sleep(Math.min(60_000, finish - Date.now()));
    // Nothing measured here: the measures the page keeps meanwhile go.
    await page.evaluate(() => performance.clearMeasures());
    samples.push({ minute: round((Date.now() - started) / 60_000), ...(await heap(cdp)) });
  }
  const end = samples[samples.length - 1];
  print({
    figure: 'heap',
    target: 'no growth beyond 10%',
    minutes: round((Date.now() - started) / 60_000),
    start_mb: start.used_mb,
    end_mb: end.used_mb,
    growth_percent: round(((end.used_mb - start.used_mb) / start.used_mb) * 100),
    drivers: Number(await mapAttribute(page, 'data-drivers')),
    pickups: Number(await mapAttribute(page, 'data-pickups')),
    start,
    samples,
  });
  await browser.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
