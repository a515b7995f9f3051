// Issue 5's realtime scenario against a real `wayfare serve --demo` (started
// with the broadcast dispatch policy by http/tests/realtime.rs):
//
// 1. five Economy drivers go online near a pickup and stream positions over
//    the socket (every ack checked); the console and the fleet admin get the
//    `drivers` feed;
// 2. a rider books, each driver gets `offer`; all five accept at once and
//    exactly one wins, the others get 409 booking_taken and `offer_withdrawn`;
// 3. the trip runs to PAID and COMPLETE, the rider's socket getting each
//    `booking` change, tracking points and chat arriving on both sockets, the
//    driver's wallet showing the driver's share over REST and `wallet`;
// 4. a second trip reaches ARRIVED, then the script prints `@@KILL` and waits
//    for `@@RESTARTED` on stdin: meanwhile the test SIGKILLs the server and
//    starts it again on the same data directory. The booking, its status and
//    the wallets are intact, the sockets reconnect and are sent the current
//    booking, and the trip finishes.

import assert from 'node:assert/strict';
import readline from 'node:readline';
import { Client, api, log, must, run, signIn, watchdog } from './lib.mjs';

watchdog(180_000);

// Fells Point, in the demo map, to the Inner Harbor.
const PICKUP = { lat: 39.286, lng: -76.58, add: 'Fells Point, Baltimore' };
const DROP = { lat: 39.2904, lng: -76.6122, add: 'Inner Harbor, Baltimore' };
// The demo's Economy drivers are 1, 4, 7, 10, … (every third); the even ones
// belong to the demo fleet.
const DRIVER_NUMBERS = [1, 4, 7, 10, 13];
const STATUSES = ['NEW', 'ACCEPTED', 'ARRIVED', 'STARTED', 'REACHED', 'PAID', 'COMPLETE'];

/** A point `metres` north-east of `from`. */
function near(from, metres) {
  const degrees = metres / 111_195;
  return { lat: from.lat + degrees, lng: from.lng + degrees / Math.cos((from.lat * Math.PI) / 180) };
}

/** A point a fraction of the way from `from` to `to`. */
function along(from, to, fraction) {
  return { lat: from.lat + (to.lat - from.lat) * fraction, lng: from.lng + (to.lng - from.lng) * fraction };
}

async function sendPosition(driver, point) {
  const ack = await driver.client.location({ ...point, heading: 90, speed: 8, accuracy: 5, at: Date.now() });
  assert.deepEqual(ack, { ok: true }, `${driver.name}'s location ack`);
}

const bookingIs = (id, status) => (booking) => booking.id === id && (status === undefined || booking.status === status);

async function book(rider) {
  const body = { pickup: PICKUP, drop: DROP, carType: 'Economy', bookLater: false };
  return must(201, 'POST', '/bookings', { token: rider.token, body });
}

/** The stdin line the test writes once the server is back. */
function waitForLine(expected) {
  const lines = readline.createInterface({ input: process.stdin });
  return new Promise((resolve) => {
    lines.on('line', (line) => {
      if (line.trim() === expected) {
        lines.close();
        resolve();
      }
    });
  });
}

/** Runs an accepted trip from ARRIVED (already there) to COMPLETE. */
async function finishTrip({ rider, driver, booking }) {
  const id = booking.id;
  await must(200, 'POST', `/bookings/${id}/start`, { token: driver.token, body: { otp: booking.otp } });
  await rider.client.expect('booking', bookingIs(id, 'STARTED'));
  await driver.client.expect('booking', bookingIs(id, 'STARTED'));

  // On the way: each position far enough from the last is a tracking point.
  for (const fraction of [0.25, 0.5, 0.75, 1]) {
    await sendPosition(driver, along(PICKUP, DROP, fraction));
    const isPoint = (event) => event.booking === id && event.point.status === 'STARTED';
    const [seenByRider] = await Promise.all([rider.client.expect('tracking', isPoint), driver.client.expect('tracking', isPoint)]);
    assert.equal(typeof seenByRider.point.lat, 'number');
  }
  log(`${id}: tracking points arrived on both sockets`);

  await must(200, 'POST', `/bookings/${id}/reach`, { token: driver.token });
  const reached = await rider.client.expect('booking', bookingIs(id, 'REACHED'));
  assert.ok(reached.trip_cost > 0);
  assert.equal(reached.driver_share, undefined, 'a rider never sees the driver share');

  // The driver collects cash: the share is credited, the cash debited.
  await must(200, 'POST', `/bookings/${id}/pay`, { token: driver.token, body: { payment_mode: 'cash' } });
  await rider.client.expect('booking', bookingIs(id, 'PAID'));
  const paid = await driver.client.expect('booking', bookingIs(id, 'PAID'));
  assert.ok(paid.driver_share > 0, 'the driver sees their share');
  await rider.client.expect('notification', (notice) => notice.key === 'payment_received' && notice.booking === id);

  await must(200, 'POST', `/bookings/${id}/rate`, { token: rider.token, body: { rating: 5 } });
  await rider.client.expect('booking', bookingIs(id, 'COMPLETE'));
  return paid;
}

/** The driver's wallet over REST holds the trip's share, and the last `wallet` event says the same balance. */
async function checkWallet(driver, paid) {
  const wallet = await must(200, 'GET', `/users/${driver.user.id}/wallet`, { token: driver.token });
  const share = wallet.walletHistory.find(
    (entry) => entry.type === 'Credit' && entry.idempotency_key.includes(paid.id) && entry.idempotency_key.includes('driver_share'),
  );
  assert.ok(share, `the share of ${paid.id} is in the wallet history: ${JSON.stringify(wallet.walletHistory)}`);
  assert.equal(share.amount, paid.driver_share);
  // The last wallet event may trail the REST answer by a moment.
  const deadline = Date.now() + 5_000;
  for (;;) {
    const events = driver.client.all('wallet');
    const last = events[events.length - 1];
    if (last && last.walletBalance === wallet.walletBalance) break;
    assert.ok(Date.now() < deadline, `wallet events ${JSON.stringify(events)} never reached ${wallet.walletBalance}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  log(`${driver.name}: wallet ${wallet.walletBalance} with the share ${share.amount} of ${paid.id}`);
  return wallet.walletBalance;
}

run('trip', async () => {
  // ---- sign in and connect --------------------------------------------------
  const [riderSession, adminSession, fleetSession, ...driverSessions] = await Promise.all([
    signIn('rider1@demo.wayfare'),
    signIn('admin@demo.wayfare'),
    signIn('fleet@demo.wayfare'),
    ...DRIVER_NUMBERS.map((number) => signIn(`driver${number}@demo.wayfare`)),
  ]);
  const rider = { name: 'rider1', ...riderSession, client: Client.withToken('rider1', riderSession.token) };
  const console_ = Client.withToken('admin', adminSession.token);
  const fleet = Client.withToken('fleet', fleetSession.token);
  const drivers = driverSessions.map((session, index) => {
    const name = `driver${DRIVER_NUMBERS[index]}`;
    return { name, ...session, client: Client.withToken(name, session.token) };
  });
  await Promise.all([rider, ...drivers].map((party) => party.client.connected()));
  await Promise.all([console_.connected(), fleet.connected()]);
  log('every socket connected');

  // ---- drivers online, streaming ---------------------------------------------
  const early = await drivers[0].client.location(PICKUP);
  assert.equal(early.error?.code, 'driver_not_eligible', 'an offline driver is refused');
  const notPosition = await drivers[0].client.location({ lat: 'north' });
  assert.equal(notPosition.error?.code, 'invalid_input');
  const fromRider = await rider.client.location(PICKUP);
  assert.equal(fromRider.error?.code, 'not_allowed');

  for (const driver of drivers) {
    await must(200, 'POST', '/drivers/me/status', { token: driver.token, body: { driverActiveStatus: true } });
  }
  for (let step = 1; step <= 5; step += 1) {
    await Promise.all(drivers.map((driver, index) => sendPosition(driver, near(PICKUP, 100 * (index + 1) + 10 * step))));
  }
  log('five drivers online, 25 positions acknowledged');

  const driverIds = new Set(drivers.map((driver) => driver.user.id));
  const feed = await console_.expect('drivers', (list) => [...driverIds].every((id) => list.some((entry) => entry.id === id)));
  for (const entry of feed) {
    assert.deepEqual(Object.keys(entry).sort(), ['available', 'carType', 'heading', 'id', 'lat', 'lng', 'state']);
  }
  const fleetDrivers = new Set(drivers.filter((driver) => driver.user.fleetadmin === fleetSession.user.id).map((driver) => driver.user.id));
  assert.equal(fleetDrivers.size, 2, 'drivers 4 and 10 are in the demo fleet');
  const fleetFeed = await fleet.expect('drivers', (list) => [...fleetDrivers].every((id) => list.some((entry) => entry.id === id)));
  for (const entry of fleetFeed) {
    assert.ok(fleetDrivers.has(entry.id), `the fleet admin sees only the fleet's drivers, not ${entry.id}`);
  }
  log('the console and the fleet admin got the drivers feed');

  // ---- a booking, five offers, five accepts at once ---------------------------
  const first = await book(rider);
  await rider.client.expect('booking', bookingIs(first.id, 'NEW'));
  const offers = await Promise.all(drivers.map((driver) => driver.client.expect('offer', (offer) => offer.booking.id === first.id)));
  for (const offer of offers) {
    assert.equal(offer.deadline, null, 'broadcast offers have no deadline');
    assert.equal(typeof offer.distance_km, 'number');
    assert.ok(offer.distance_km < 1, `the drivers are near the pickup: ${offer.distance_km} km`);
  }
  const consoleView = await console_.expect('booking', bookingIs(first.id));
  assert.equal(typeof consoleView.driver_share, 'number', 'the console sees the fare split');
  await console_.expect('dispatch', (entry) => entry.booking === first.id && entry.kind === 'offered');
  log(`${first.id}: offered to all five drivers`);

  const answers = await Promise.all(drivers.map((driver) => api('POST', `/bookings/${first.id}/accept`, { token: driver.token })));
  const winners = answers.flatMap((answer, index) => (answer.status === 200 ? [index] : []));
  assert.equal(winners.length, 1, `exactly one accept wins: ${JSON.stringify(answers.map((answer) => answer.status))}`);
  const winner = drivers[winners[0]];
  for (const [index, answer] of answers.entries()) {
    if (index === winners[0]) continue;
    assert.equal(answer.status, 409);
    assert.equal(answer.body.error.code, 'booking_taken');
    const withdrawn = await drivers[index].client.expect('offer_withdrawn', (event) => event.booking === first.id);
    assert.equal(withdrawn.reason, 'taken');
  }
  log(`${winner.name} won; the four others got booking_taken and offer_withdrawn`);

  const accepted = await rider.client.expect('booking', bookingIs(first.id, 'ACCEPTED'));
  assert.equal(accepted.driver, winner.user.id);
  await winner.client.expect('booking', bookingIs(first.id, 'ACCEPTED'));
  const notice = await rider.client.expect('notification', (event) => event.key === 'booking_accepted');
  assert.equal(notice.booking, first.id);
  assert.equal(notice.channel, 'bookings');
  assert.ok(notice.title && notice.body && notice.body !== notice.key, 'the notification carries English texts');
  await console_.expect('dispatch', (entry) => entry.booking === first.id && entry.kind === 'accepted');
  if (fleetDrivers.has(winner.user.id)) {
    await fleet.expect('booking', bookingIs(first.id, 'ACCEPTED'));
  }

  // ---- the trip ----------------------------------------------------------------
  await must(200, 'POST', `/bookings/${first.id}/arrive`, { token: winner.token });
  await rider.client.expect('booking', bookingIs(first.id, 'ARRIVED'));
  await rider.client.expect('tracking', (event) => event.booking === first.id && event.point.status === 'ARRIVED');

  const fromRiderChat = await must(201, 'POST', `/bookings/${first.id}/chat`, { token: rider.token, body: { message: 'I am by the blue door' } });
  assert.equal(fromRiderChat.message, 'I am by the blue door');
  for (const party of [rider, winner]) {
    const chat = await party.client.expect('chat', (event) => event.booking === first.id && event.message.message === 'I am by the blue door');
    assert.equal(chat.message.from, rider.user.id);
  }
  await winner.client.expect('notification', (event) => event.key === 'chat_requested' && event.booking === first.id);
  await must(201, 'POST', `/bookings/${first.id}/chat`, { token: winner.token, body: { message: 'On my way to it' } });
  await rider.client.expect('chat', (event) => event.message.message === 'On my way to it' && event.message.from === winner.user.id);
  await winner.client.expect('chat', (event) => event.message.message === 'On my way to it');
  log(`${first.id}: chat arrived on both sockets`);

  const firstPaid = await finishTrip({ rider, driver: winner, booking: first });
  const seen = rider.client.all('booking').filter((booking) => booking.id === first.id).map((booking) => booking.status);
  const order = STATUSES.map((status) => seen.indexOf(status));
  assert.ok(order.every((at, index) => at >= 0 && (index === 0 || at > order[index - 1])), `the rider saw every change in order: ${seen}`);
  await checkWallet(winner, firstPaid);
  log(`${first.id}: COMPLETE; the rider's socket saw ${seen.join(' → ')}`);

  // ---- a second trip, killed at ARRIVED ------------------------------------------
  const second = await book(rider);
  const secondDriver = drivers.find((driver) => driver !== winner);
  await secondDriver.client.expect('offer', (offer) => offer.booking.id === second.id);
  await must(200, 'POST', `/bookings/${second.id}/accept`, { token: secondDriver.token });
  await must(200, 'POST', `/bookings/${second.id}/arrive`, { token: secondDriver.token });
  await rider.client.expect('booking', bookingIs(second.id, 'ARRIVED'));
  await secondDriver.client.expect('booking', bookingIs(second.id, 'ARRIVED'));
  const walletsBefore = {};
  for (const driver of [winner, secondDriver]) {
    walletsBefore[driver.name] = (await must(200, 'GET', `/users/${driver.user.id}/wallet`, { token: driver.token })).walletBalance;
  }
  for (const client of [rider.client, secondDriver.client]) client.forget();
  const connectsBefore = rider.client.connects;

  log('@@KILL');
  console.log('@@KILL');
  await waitForLine('@@RESTARTED');
  log('the server is back');

  // The sockets come back by themselves and are sent the booking as it is.
  const [riderCurrent, driverCurrent] = await Promise.all([
    rider.client.expect('booking', bookingIs(second.id), 20_000),
    secondDriver.client.expect('booking', bookingIs(second.id), 20_000),
  ]);
  assert.equal(riderCurrent.status, 'ARRIVED');
  assert.equal(driverCurrent.status, 'ARRIVED');
  assert.ok(rider.client.connects > connectsBefore, 'the rider reconnected');
  const stored = await must(200, 'GET', `/bookings/${second.id}`, { token: rider.token });
  assert.equal(stored.status, 'ARRIVED');
  assert.equal(stored.driver, secondDriver.user.id);
  assert.equal((await must(200, 'GET', `/bookings/${first.id}`, { token: rider.token })).status, 'COMPLETE');
  for (const driver of [winner, secondDriver]) {
    const balance = (await must(200, 'GET', `/users/${driver.user.id}/wallet`, { token: driver.token })).walletBalance;
    assert.equal(balance, walletsBefore[driver.name], `${driver.name}'s wallet survived the crash`);
  }
  log(`${second.id}: ARRIVED and the wallets intact after SIGKILL and restart`);

  // The driver is still online after the restart and the trip can finish.
  await sendPosition(secondDriver, PICKUP);
  const secondPaid = await finishTrip({ rider, driver: secondDriver, booking: second });
  await checkWallet(secondDriver, secondPaid);
  log(`${second.id}: finished after the restart`);

  for (const client of [rider.client, console_, fleet, ...drivers.map((driver) => driver.client)]) client.close();
});
