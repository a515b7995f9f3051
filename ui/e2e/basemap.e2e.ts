// The basemap: the server's own vector tiles of its OpenStreetMap extract,
// drawn by MapLibre with the browser's fonts. A rider's estimate shows the
// streets, the harbour and their names around the route, credits
// OpenStreetMap, and nothing is fetched from anywhere but the server.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, launchBrowser, newPerson, screenshot, signIn, type Person } from './support/browser';
import { expectNoErrors, fillBookingForm } from './support/flows';
import { readPng, shareDark, shareOf } from './support/png';

describe('the basemap', () => {
  let browser: Browser;
  let rider: Person;
  const requests: string[] = [];
  const tiles: { status: number; bytes: number }[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    rider = await newPerson(browser, 'rider');
    rider.context.on('request', (request) => requests.push(request.url()));
    rider.context.on('response', async (response) => {
      if (!response.url().includes('/api/v1/geo/basemap/tiles/')) return;
      const body = await response.body().catch(() => Buffer.alloc(0));
      tiles.push({ status: response.status(), bytes: body.length });
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('draws the streets, the water and their names under a route, credited to OpenStreetMap', async () => {
    await signIn(rider, 'rider2@demo.wayfare');
    const page = rider.page;
    await fillBookingForm(page, { pickup: ['Fells', 'Fells Point'], drop: ['Patterson', 'Patterson Park'], carType: 'Economy' });
    await page.getByTestId('book-button').click();
    const dialog = page.getByTestId('estimate-dialog');
    await dialog.waitFor();
    const map = dialog.locator('[data-testid="map"][data-basemap="osm"]');
    await map.waitFor({ timeout: 20_000 });
    // Tiles arrive, then MapLibre draws them and places the labels.
    await expect.poll(() => tiles.filter((tile) => tile.status === 200 && tile.bytes > 1000).length, { timeout: 20_000 }).toBeGreaterThan(0);
    expect(await map.locator('.maplibregl-ctrl-attrib').textContent()).toContain('© OpenStreetMap contributors');
    // Roads (white with a grey-brown casing), the harbour (blue) and labels
    // (dark text): none of which the offline style has. Software WebGL on a
    // busy machine may take a few seconds to draw and place the labels.
    const measure = async () => {
      const pixels = readPng(await map.screenshot());
      return {
        roads: shareOf(pixels, '#ffffff', 3) > 0.02,
        casing: shareOf(pixels, '#d3ccc1', 10) > 0.002,
        water: shareOf(pixels, '#aad2e4', 8) > 0.01,
        text: shareDark(pixels) > 0.0005,
      };
    };
    await expect.poll(measure, { timeout: 20_000, interval: 1000 }).toEqual({ roads: true, casing: true, water: true, text: true });
    await screenshot(page, 'basemap-estimate');
    expectNoErrors(rider);
  });

  it('fetched nothing from outside the server', () => {
    const server = new URL(baseUrl()).origin;
    const outside = requests.filter((url) => !url.startsWith(server) && !url.startsWith('data:') && !url.startsWith('blob:'));
    expect(outside).toEqual([]);
    expect(requests.some((url) => url.includes('/api/v1/geo/basemap/style.json'))).toBe(true);
  });
});
