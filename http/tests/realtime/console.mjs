// Issue #15's console over the socket, against a real `wayfare serve --demo`
// (the `waves` policy, three drivers a wave):
//
// 1. driver1 (no fleet) and driver4 (the demo fleet), both Economy, go online
//    near a pickup, heading east; the admin's console and the fleet admin's
//    get the `drivers` feed with each driver's state and heading, the fleet
//    admin only driver4;
// 2. a rider books; one wave offers both drivers. The console's `dispatch`
//    log names both with their distances, the fleet admin's names driver4
//    alone; the feed shows both `offered`;
// 3. driver1 accepts: the console logs the accept and sees driver1 going to
//    the pickup; the fleet admin is told driver4's offer was withdrawn
//    (taken) and never receives anything naming driver1, nor the booking
//    once it is another fleet's.

import assert from 'node:assert/strict';
import { Client, log, must, run, signIn, watchdog } from './lib.mjs';

watchdog(120_000);

const PICKUP = { lat: 39.286, lng: -76.58, add: 'Fells Point, Baltimore' };
const DROP = { lat: 39.2904, lng: -76.6122, add: 'Inner Harbor, Baltimore' };

function north(from, metres) {
  return { lat: from.lat + metres / 111_195, lng: from.lng };
}

run('console', async () => {
  const [riderSession, adminSession, fleetSession, outsiderSession, fleetDriverSession] = await Promise.all([
    signIn('rider1@demo.wayfare'),
    signIn('admin@demo.wayfare'),
    signIn('fleet@demo.wayfare'),
    signIn('driver1@demo.wayfare'),
    signIn('driver4@demo.wayfare'),
  ]);
  const outsider = { ...outsiderSession, client: Client.withToken('driver1', outsiderSession.token) };
  const fleetDriver = { ...fleetDriverSession, client: Client.withToken('driver4', fleetDriverSession.token) };
  assert.equal(fleetDriver.user.fleetadmin, fleetSession.user.id, 'driver4 is in the demo fleet');
  assert.notEqual(outsider.user.fleetadmin, fleetSession.user.id, 'driver1 is not');
  const console_ = Client.withToken('admin', adminSession.token);
  const fleet = Client.withToken('fleet', fleetSession.token);
  await Promise.all([outsider, fleetDriver].map((driver) => driver.client.connected()));
  await Promise.all([console_.connected(), fleet.connected()]);

  // ---- online, heading east ------------------------------------------------------
  for (const [driver, metres] of [[outsider, 100], [fleetDriver, 300]]) {
    await must(200, 'POST', '/drivers/me/status', { token: driver.token, body: { driverActiveStatus: true } });
    const ack = await driver.client.location({ ...north(PICKUP, metres), heading: 90, at: Date.now() });
    assert.deepEqual(ack, { ok: true });
  }
  const ids = [outsider.user.id, fleetDriver.user.id];
  const entryOf = (list, id) => list.find((entry) => entry.id === id);
  const both = await console_.expect('drivers', (list) => ids.every((id) => entryOf(list, id)?.heading === 90));
  for (const id of ids) {
    assert.equal(entryOf(both, id).state, 'available');
  }
  const ours = await fleet.expect('drivers', (list) => entryOf(list, fleetDriver.user.id)?.heading === 90);
  assert.equal(entryOf(ours, fleetDriver.user.id).state, 'available');
  log('the feeds carry state and heading');

  // ---- one wave offers both ---------------------------------------------------------
  const body = { pickup: PICKUP, drop: DROP, carType: 'Economy', bookLater: false };
  const booking = await must(201, 'POST', '/bookings', { token: riderSession.token, body });
  const offeredTo = (entry) => entry.booking === booking.id && entry.kind === 'offered';
  const offered = await console_.expect('dispatch', offeredTo);
  assert.deepEqual([...offered.drivers].sort(), [...ids].sort());
  assert.equal(offered.car_type, 'Economy');
  assert.equal(offered.wave, 1);
  const nearest = offered.distances_km[offered.drivers.indexOf(outsider.user.id)];
  assert.ok(Math.abs(nearest - 0.1) < 0.01, `driver1 was offered 100 m away: ${nearest}`);
  const fleetOffered = await fleet.expect('dispatch', offeredTo);
  assert.deepEqual(fleetOffered.drivers, [fleetDriver.user.id]);
  assert.equal(fleetOffered.distances_km.length, 1);
  assert.ok(Math.abs(fleetOffered.distances_km[0] - 0.3) < 0.01, `driver4 was offered 300 m away: ${fleetOffered.distances_km[0]}`);
  const fleetBooking = await fleet.expect('booking', (seen) => seen.id === booking.id);
  assert.deepEqual(Object.keys(fleetBooking.requestedDrivers), [fleetDriver.user.id], 'only the fleet\'s offer shows');
  await console_.expect('drivers', (list) => ids.every((id) => entryOf(list, id)?.state === 'offered'));
  await fleet.expect('drivers', (list) => entryOf(list, fleetDriver.user.id)?.state === 'offered');
  log('the wave is logged, cut to the fleet');

  // ---- driver1 accepts ---------------------------------------------------------------
  await must(200, 'POST', `/bookings/${booking.id}/accept`, { token: outsider.token });
  const accepted = await console_.expect('dispatch', (entry) => entry.booking === booking.id && entry.kind === 'accepted');
  assert.equal(accepted.driver, outsider.user.id);
  const withdrawn = await fleet.expect('dispatch', (entry) => entry.booking === booking.id && entry.kind === 'withdrawn');
  assert.deepEqual(withdrawn.drivers, [fleetDriver.user.id]);
  assert.equal(withdrawn.reason, 'taken');
  await console_.expect('drivers', (list) => entryOf(list, outsider.user.id)?.state === 'to_pickup');
  await fleet.expect('drivers', (list) => entryOf(list, fleetDriver.user.id)?.state === 'available');

  // Let a few more feed ticks and events arrive before looking at everything.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  for (const entry of fleet.received) {
    const text = JSON.stringify(entry.payload ?? null);
    assert.ok(!text.includes(outsider.user.id), `the fleet admin received '${entry.event}' naming driver1: ${text}`);
  }
  for (const seen of fleet.all('booking')) {
    assert.equal(seen.status, 'NEW', 'the fleet admin never sees the booking once another fleet has it');
  }
  assert.ok(fleet.all('dispatch').every((entry) => entry.kind !== 'accepted'));
  log(`the fleet admin received ${fleet.received.length} events, none about another fleet`);

  for (const client of [console_, fleet, outsider.client, fleetDriver.client]) client.close();
});
