// Issue #33's SOS over the socket, against a real `wayfare serve --demo`
// (the `waves` policy):
//
// 1. driver4 (Economy, the demo fleet) goes online near a pickup; rider1
//    books and driver4 accepts;
// 2. rider1 raises an SOS over REST: the admin's socket and the demo fleet
//    admin's get `sos` within a second; a second fleet admin's socket and
//    another rider's get nothing;
// 3. the admin takes it and resolves it with a note: the same sockets get
//    `sos` again with each state, the others still nothing.

import assert from 'node:assert/strict';
import { Client, log, must, run, signIn, watchdog } from './lib.mjs';

watchdog(90_000);

const PICKUP = { lat: 39.286, lng: -76.58, add: 'Fells Point, Baltimore' };
const DROP = { lat: 39.2904, lng: -76.6122, add: 'Inner Harbor, Baltimore' };
const WITHIN_MS = 1_000;
/** How long the sockets that must not hear of it are watched. */
const QUIET_MS = 1_500;

run('sos', async () => {
  const [riderSession, driverSession, adminSession, fleetSession, otherRiderSession] = await Promise.all([
    signIn('rider1@demo.wayfare'),
    signIn('driver4@demo.wayfare'),
    signIn('admin@demo.wayfare'),
    signIn('fleet@demo.wayfare'),
    signIn('rider2@demo.wayfare'),
  ]);
  assert.equal(driverSession.user.fleetadmin, fleetSession.user.id, 'driver4 is in the demo fleet');
  // A second fleet, made by the admin.
  const fleet2Fields = { usertype: 'fleetadmin', firstName: 'Otto', lastName: 'Otherfleet', email: 'fleet2@test.wayfare' };
  await must(201, 'POST', '/users', { token: adminSession.token, body: fleet2Fields });
  const fleet2Session = await signIn('fleet2@test.wayfare');

  const admin = Client.withToken('admin', adminSession.token);
  const fleet = Client.withToken('fleet', fleetSession.token);
  const fleet2 = Client.withToken('fleet2', fleet2Session.token);
  const otherRider = Client.withToken('rider2', otherRiderSession.token);
  const driver = Client.withToken('driver4', driverSession.token);
  await Promise.all([admin, fleet, fleet2, otherRider, driver].map((client) => client.connected()));

  // ---- a trip with driver4 ---------------------------------------------------------
  await must(200, 'POST', '/drivers/me/status', { token: driverSession.token, body: { driverActiveStatus: true } });
  const ack = await driver.location({ lat: PICKUP.lat + 0.001, lng: PICKUP.lng, heading: 0, at: Date.now() });
  assert.deepEqual(ack, { ok: true });
  const body = { pickup: PICKUP, drop: DROP, carType: 'Economy', bookLater: false };
  const booking = await must(201, 'POST', '/bookings', { token: riderSession.token, body });
  await driver.expect('offer', (offer) => (offer.booking?.id ?? offer.id) === booking.id);
  await must(200, 'POST', `/bookings/${booking.id}/accept`, { token: driverSession.token });
  log(`${booking.reference}: accepted by driver4`);

  // ---- the SOS reaches the admin and the right fleet admin at once ----------------
  const raisedAt = Date.now();
  const raised = await must(201, 'POST', `/bookings/${booking.id}/sos`, {
    token: riderSession.token,
    body: { lat: 39.2871, lng: -76.5912 },
  });
  const alertId = raised.alert.id;
  const isAlert = (state) => (alert) => alert.id === alertId && alert.state === state;
  const [seenByAdmin, seenByFleet] = await Promise.all([
    admin.expect('sos', isAlert('open'), WITHIN_MS),
    fleet.expect('sos', isAlert('open'), WITHIN_MS),
  ]);
  const elapsed = Date.now() - raisedAt;
  assert.ok(elapsed < WITHIN_MS, `told within a second (${elapsed} ms)`);
  for (const seen of [seenByAdmin, seenByFleet]) {
    assert.equal(seen.booking, booking.id);
    assert.equal(seen.reference, booking.reference);
    assert.equal(seen.raised_by, riderSession.user.id);
    assert.equal(seen.raised_by_role, 'rider');
    assert.equal(seen.fleetadmin, fleetSession.user.id);
    assert.deepEqual([seen.lat, seen.lng], [39.2871, -76.5912]);
  }
  log(`sos told to the admin and the fleet admin in ${elapsed} ms`);

  // ---- taken and resolved: told again, with the state -------------------------------
  await must(200, 'POST', `/sos/${alertId}/take`, { token: adminSession.token });
  await Promise.all([admin.expect('sos', isAlert('taken'), WITHIN_MS), fleet.expect('sos', isAlert('taken'), WITHIN_MS)]);
  const note = 'Called the rider: a flat tyre, all safe';
  await must(200, 'POST', `/sos/${alertId}/resolve`, { token: fleetSession.token, body: { note } });
  const [resolved] = await Promise.all([
    admin.expect('sos', isAlert('resolved'), WITHIN_MS),
    fleet.expect('sos', isAlert('resolved'), WITHIN_MS),
  ]);
  assert.equal(resolved.note, note);
  log('taking and resolving were told to both');

  // ---- nobody else heard any of it ---------------------------------------------------
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  for (const client of [fleet2, otherRider, driver]) {
    assert.deepEqual(client.all('sos'), [], `${client.name} is never told of the SOS`);
  }
  log('the other fleet admin, another rider and the driver heard nothing');
  for (const client of [admin, fleet, fleet2, otherRider, driver]) client.close();
});
