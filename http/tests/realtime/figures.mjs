// Issue #15's `console` and `hexes` pushes against a real server: a known set
// of drivers and bookings is made, then the admin's console asks for
// resolution 9 and prints what it is sent, with the drivers feed, the
// bookings and their dispatch timelines (`@@CHECK {...}`). The Rust test
// computes the engine's figures and hexagons from those and compares.
//
// Three Economy drivers online; three bookings:
// - A (rider1): offered to all three; driver7 accepts (driver1 and driver4
//   lose it: taken, not answered);
// - B (rider2): offered to driver1 and driver4, who both decline; nobody is
//   left, so it waits (open);
// - C (rider3): offered to driver1 and driver4, then cancelled by its rider:
//   unserved.

import assert from 'node:assert/strict';
import { Client, log, must, run, signIn, watchdog } from './lib.mjs';

watchdog(120_000);

const FELLS_POINT = { lat: 39.2825, lng: -76.5927, add: 'Fells Point, Baltimore' };
const FORT_MCHENRY = { lat: 39.2634, lng: -76.5803, add: 'Fort McHenry, Baltimore' };
const INNER_HARBOR = { lat: 39.2854, lng: -76.6127, add: 'Inner Harbor, Baltimore' };

function north(from, metres) {
  return { lat: from.lat + metres / 111_195, lng: from.lng };
}

const entryIs = (id, kind) => (entry) => entry.booking === id && entry.kind === kind;

run('figures', async () => {
  const sessions = await Promise.all(
    ['admin', 'rider1', 'rider2', 'rider3', 'driver1', 'driver4', 'driver7'].map((name) => signIn(`${name}@demo.wayfare`)),
  );
  const [admin, rider1, rider2, rider3, ...driverSessions] = sessions;
  const console_ = Client.withToken('admin', admin.token);
  await console_.connected();
  // A console is sent the figures and the default resolution's hexes at once.
  const first = await console_.expect('console');
  assert.ok(first.figures && Array.isArray(first.history), JSON.stringify(first));
  assert.equal((await console_.expect('hexes')).resolution, 8);

  const spots = [north(FELLS_POINT, 150), north(INNER_HARBOR, 80), north(FORT_MCHENRY, -120)];
  const drivers = driverSessions.map((session, index) => ({ ...session, spot: spots[index] }));
  for (const driver of drivers) {
    await must(200, 'POST', '/drivers/me/status', { token: driver.token, body: { driverActiveStatus: true } });
    await must(200, 'POST', '/drivers/me/location', { token: driver.token, body: driver.spot });
  }
  const [driver1, driver4, driver7] = drivers;
  const book = (rider, pickup) =>
    must(201, 'POST', '/bookings', { token: rider.token, body: { pickup, drop: INNER_HARBOR, carType: 'Economy', bookLater: false } });

  const a = await book(rider1, FELLS_POINT);
  await console_.expect('dispatch', entryIs(a.id, 'offered'));
  await must(200, 'POST', `/bookings/${a.id}/accept`, { token: driver7.token });
  await console_.expect('dispatch', entryIs(a.id, 'accepted'));

  const b = await book(rider2, FORT_MCHENRY);
  await console_.expect('dispatch', entryIs(b.id, 'offered'));
  await must(200, 'POST', `/bookings/${b.id}/decline`, { token: driver1.token });
  await must(200, 'POST', `/bookings/${b.id}/decline`, { token: driver4.token });
  await console_.expect('dispatch', (entry) => entry.booking === b.id && ['no_candidates', 'exhausted'].includes(entry.kind));

  const c = await book(rider3, north(FORT_MCHENRY, 40));
  await console_.expect('dispatch', entryIs(c.id, 'offered'));
  await must(200, 'POST', `/bookings/${c.id}/cancel`, { token: rider3.token, body: { reason: 'Changed my mind' } });
  await console_.expect('dispatch', entryIs(c.id, 'cancelled'));

  // Let the drivers feed settle on the drivers' states.
  await console_.expect('drivers', (list) => list.find((entry) => entry.id === driver7.user.id)?.state === 'to_pickup');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const feeds = console_.all('drivers');
  const feed = feeds[feeds.length - 1];
  assert.equal(feed.length, 3);

  const refused = await console_.socket.timeout(10_000).emitWithAck('console', { resolution: 12 });
  assert.equal(refused.error?.code, 'invalid_input');
  assert.equal(refused.error?.field, 'resolution');
  console_.forget();
  const ack = await console_.socket.timeout(10_000).emitWithAck('console', { resolution: 9 });
  assert.deepEqual(ack, { ok: true });
  const pushed = await console_.expect('console');
  const hexes = await console_.expect('hexes', (payload) => payload.resolution === 9);
  // The room now gets resolution 9 only.
  const next = await console_.expect('hexes', () => true, 12_000);
  assert.equal(next.resolution, 9);

  const bookings = [];
  const timelines = {};
  for (const booking of [a, b, c]) {
    const { id, status, bookingDate, pickup, driver } = await must(200, 'GET', `/bookings/${booking.id}`, { token: admin.token });
    bookings.push({ id, status, bookingDate, pickup, driver });
    timelines[booking.id] = (await must(200, 'GET', `/bookings/${booking.id}/dispatch`, { token: admin.token })).items;
  }
  assert.equal(pushed.figures.open, 1, JSON.stringify(pushed.figures));
  console.log(`@@CHECK ${JSON.stringify({ console: pushed, hexes, feed, bookings, timelines })}`);
  log(`console figures ${JSON.stringify(pushed.figures)}, ${hexes.cells.length} cells`);
  console_.close();
});
