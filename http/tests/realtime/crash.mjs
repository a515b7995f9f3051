// Issue 17, one node: a SIGKILL while bookings pour in loses nothing any
// client was told had happened (run by http/tests/realtime.rs on SQLite and
// on PostgreSQL, and at 100 bookings/s by `make chaos`).
//
// Five riders book in an open loop (CRASH_BOOKING_RATE per second in all)
// and cancel about half of their bookings a moment later, and the others
// when no driver took them within 5 s; the demo's seven
// Economy drivers stream positions over their sockets, accept the offers
// they get and run each trip to PAID, the rider rating it COMPLETE. Every
// answer a client got is written to a journal. CRASH_KILLS times, every
// CRASH_KILL_EVERY seconds, the script prints `@@KILL` and carries on
// booking while the test SIGKILLs the server and starts it again on the same
// data (it answers `@@RESTARTED`); requests meanwhile fail, and a failed
// request is no promise. After CRASH_SECONDS_AFTER more seconds of load it
// lets the trips finish and checks against the server:
// - every acknowledged booking exists, no earlier in its life than the last
//   acknowledged step, and cancelled when a cancel was acknowledged;
// - no booking had two acknowledged accepts, and each accepted booking still
//   has the driver whose accept was acknowledged;
// - every acknowledged payment left the driver's share in the ledger;
// - every socket reconnected, and for each booking still active the last
//   `booking` event its rider's socket holds says what the server says.
// Prints `RESULT {json}` with the counts.
//
// On a cluster (CRASH_URLS, the nodes' URLs comma-separated; run by
// `bookings_pouring_in_survive_a_node_killed_in_a_cluster`), rider i uses
// node i and driver j node j + 1 (modulo the nodes), so bookings, offers and
// events cross nodes. A kill names its node, `@@KILL <index in CRASH_URLS>`,
// the first kill node 0, the next node 1, and so on; the test SIGKILLs that
// node, starts it again on the same port and data, and answers
// `@@RESTARTED`. Meanwhile a request that cannot reach a party's node is
// sent to the next node (only an answer is a promise), and a socket that
// cannot reconnect to its node moves to the next one (lib.mjs `Client`); each
// socket that was on the killed node must have connected again.

import assert from 'node:assert/strict';
import readline from 'node:readline';
import { BASE, Client, api, log, run, signIn, watchdog } from './lib.mjs';

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const RATE = env('CRASH_BOOKING_RATE', 10);
const KILLS = env('CRASH_KILLS', 1);
const KILL_EVERY_MS = env('CRASH_KILL_EVERY', 6) * 1000;
const AFTER_MS = env('CRASH_SECONDS_AFTER', 5) * 1000;
/** The nodes: CRASH_URLS, or the one server of WAYFARE_URL. */
const URLS = (process.env.CRASH_URLS ?? '')
  .split(',')
  .map((url) => url.trim().replace(/\/+$/, ''))
  .filter(Boolean);
if (URLS.length === 0) URLS.push(BASE);
const CLUSTER = URLS.length > 1;
// The checks read every acknowledged booking back: allow for them too.
watchdog(KILLS * KILL_EVERY_MS + AFTER_MS + 600_000);
// A rider who got no driver gives up after this long, as riders do; it also
// keeps the active bookings (and each restart's restore) bounded in long runs.
const GIVE_UP_MS = 5_000;

const CENTRE = { lat: 39.286, lng: -76.58 };
// The demo's Economy drivers are 1, 4, 7, … (every third).
const DRIVER_NUMBERS = [1, 4, 7, 10, 13, 16, 19];
const RANK = { NEW: 0, ACCEPTED: 1, ARRIVED: 2, STARTED: 3, REACHED: 4, PENDING: 4, PAID: 5, COMPLETE: 6 };
const ACTIVE = new Set(['PAYMENT_PENDING', 'NEW', 'ACCEPTED', 'ARRIVED', 'STARTED', 'REACHED', 'PENDING', 'PAID']);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

function around(centre, km) {
  const angle = Math.random() * 2 * Math.PI;
  const degrees = (Math.sqrt(Math.random()) * km) / 111.195;
  return { lat: centre.lat + degrees * Math.sin(angle), lng: centre.lng + (degrees * Math.cos(angle)) / Math.cos((centre.lat * Math.PI) / 180) };
}

/** Every node, starting with node `first`. */
function nodesFrom(first) {
  return URLS.map((_, index) => URLS[(first + index) % URLS.length]);
}

/**
 * A request of `party`'s that may meet a dead node: `{status, body}`, or
 * `{status: 0}` when no node could be reached. It goes to the party's node,
 * and on to the next one when the connection fails (only one, unless there
 * are several nodes).
 */
async function call(party, method, path, body) {
  let failure;
  for (const base of nodesFrom(party.node)) {
    try {
      const answer = await api(method, path, { token: party.token, body, base });
      if (failure) clusterCounts.answeredElsewhere += 1;
      return answer;
    } catch (error) {
      failure = error;
    }
  }
  return { status: 0, body: String(failure.cause?.code ?? failure.message) };
}

// ---- the journal: what each client was told -------------------------------------
const journal = new Map(); // booking id → { rider, otp, acked: status, accepts: [driver ids], cancelAsked, cancelAcked, paidBy }
const counts = { booked: 0, refusedWhileDown: 0, unroutable: 0, cancelled: 0, accepted: 0, paid: 0, completed: 0, stepsRetried: 0 };
// On a cluster: requests another node answered when the party's could not be reached.
const clusterCounts = { answeredElsewhere: 0 };

function ack(id, status) {
  const entry = journal.get(id);
  if (RANK[status] > RANK[entry.acked]) entry.acked = status;
}

// ---- drivers ----------------------------------------------------------------------
const state = { loading: true, stopping: false };

/** One trip step, retried while the server is away; true once acknowledged. */
async function step(driver, id, path, body, status) {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const answer = await call(driver, 'POST', `/bookings/${id}/${path}`, body);
    if (answer.status === 200) {
      ack(id, status);
      return true;
    }
    if (answer.status === 0 || answer.status >= 500) {
      counts.stepsRetried += 1;
      await sleep(250);
      continue;
    }
    // Refused: the step may have been done before a crash took its answer, or the rider cancelled.
    const stored = await call(driver, 'GET', `/bookings/${id}`);
    if (stored.status === 200 && stored.body.status !== 'CANCELLED' && RANK[stored.body.status] >= RANK[status]) return true;
    log(`${driver.name}: ${path} of ${id} refused (${answer.status} ${JSON.stringify(answer.body)}), the booking is ${stored.body?.status}`);
    return false;
  }
  throw new Error(`${driver.name}: ${path} of ${id} never answered`);
}

async function runTrip(driver, id) {
  const entry = journal.get(id);
  const accepted = await call(driver, 'POST', `/bookings/${id}/accept`);
  if (accepted.status !== 200) return;
  entry.accepts.push(driver.user.id);
  counts.accepted += 1;
  ack(id, 'ACCEPTED');
  const stages = [
    ['arrive', undefined, 'ARRIVED'],
    ['start', { otp: entry.otp }, 'STARTED'],
    ['reach', undefined, 'REACHED'],
    ['pay', { payment_mode: 'cash' }, 'PAID'],
  ];
  for (const [path, body, status] of stages) {
    await sleep(100 + Math.random() * 400);
    if (!(await step(driver, id, path, body, status))) return;
  }
  entry.paidBy = driver;
  counts.paid += 1;
  if (await step(entry.rider, id, 'rate', { rating: 5 }, 'COMPLETE')) counts.completed += 1;
}

function startDriver(driver) {
  driver.busy = null;
  driver.client.on('offer', (offer) => {
    const id = offer.booking?.id;
    if (state.stopping || driver.busy || !journal.has(id)) return;
    driver.busy = runTrip(driver, id)
      .catch((error) => {
        driver.failure = error;
      })
      .finally(() => {
        driver.busy = null;
      });
  });
  // Positions every second; an answer lost to a crash is only a position.
  driver.streaming = (async () => {
    let here = around(CENTRE, 1);
    while (!state.stopping) {
      here = around(here, 0.05);
      await driver.client.location({ ...here, heading: 90, speed: 8, accuracy: 5, at: Date.now() }).catch(() => {});
      await sleep(1000);
    }
  })();
}

// ---- riders -------------------------------------------------------------------------
async function riderLoop(rider, interval, offset) {
  await sleep(offset);
  let next = Date.now();
  while (state.loading) {
    next += interval;
    const body = { pickup: { ...around(CENTRE, 1.5), add: 'Crash test pickup' }, drop: { ...around(CENTRE, 3), add: 'Crash test drop' }, carType: 'Economy', bookLater: false };
    const created = await call(rider, 'POST', '/bookings', body);
    if (created.status === 201) {
      counts.booked += 1;
      journal.set(created.body.id, { rider, otp: created.body.otp, acked: 'NEW', accepts: [], cancelAsked: false, cancelAcked: false });
      cancelLater(rider, created.body.id, Math.random() < 0.5 ? Math.random() * 1500 : GIVE_UP_MS);
    } else if (created.status === 0 || created.status >= 500) {
      counts.refusedWhileDown += 1;
    } else if (created.body?.error?.code === 'place_to_coords_error') {
      // A random point in the harbour has no road to it.
      counts.unroutable += 1;
    } else {
      throw new Error(`POST /bookings: ${created.status} ${JSON.stringify(created.body)}`);
    }
    await sleep(next - Date.now());
  }
}

const cancels = [];
function cancelLater(rider, id, delay) {
  cancels.push(
    (async () => {
      await sleep(delay);
      const entry = journal.get(id);
      if (entry.acked !== 'NEW') return;
      entry.cancelAsked = true;
      const answer = await call(rider, 'POST', `/bookings/${id}/cancel`, { reason: 'Changed my plans' });
      if (answer.status === 200) {
        entry.cancelAcked = true;
        counts.cancelled += 1;
      }
    })(),
  );
}

// ---- the checks -------------------------------------------------------------------
/** Runs `work` on every item, `width` at a time. */
async function pool(items, width, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

async function verify(riders, drivers) {
  const problems = [];
  await pool([...journal], 16, async ([id, entry]) => {
    const answer = await call(entry.rider, 'GET', `/bookings/${id}`);
    if (answer.status !== 200) {
      problems.push(`${id}: acknowledged booking not found (${answer.status})`);
      return;
    }
    const stored = answer.body;
    entry.final = stored.status;
    if (entry.cancelAcked && stored.status !== 'CANCELLED') problems.push(`${id}: cancel acknowledged, status ${stored.status}`);
    if (stored.status === 'CANCELLED') {
      if (!entry.cancelAsked && entry.acked !== 'NEW') problems.push(`${id}: CANCELLED though nobody asked, after ${entry.acked} was acknowledged`);
    } else if (RANK[stored.status] < RANK[entry.acked]) {
      problems.push(`${id}: ${entry.acked} was acknowledged, the server says ${stored.status}`);
    }
    if (entry.accepts.length > 1) problems.push(`${id}: ${entry.accepts.length} accepts acknowledged`);
    if (entry.accepts.length === 1 && stored.driver !== entry.accepts[0]) {
      problems.push(`${id}: accepted by ${entry.accepts[0]}, the server says driver ${stored.driver}`);
    }
  });

  // Every acknowledged payment left the driver's share in the ledger.
  for (const driver of drivers) {
    const wallet = await call(driver, 'GET', `/users/${driver.user.id}/wallet?limit=500`);
    assert.equal(wallet.status, 200, `${driver.name}'s wallet`);
    const keys = wallet.body.walletHistory.map((entry) => entry.idempotency_key);
    for (const [id, entry] of journal) {
      if (entry.paidBy !== driver) continue;
      if (!keys.some((key) => key.includes(id) && key.includes('driver_share'))) problems.push(`${id}: paid, no driver share in ${driver.name}'s ledger`);
    }
  }

  // Every socket came back, and the riders' sockets hold the current state.
  for (const party of [...riders, ...drivers]) {
    if (party.client.connects < party.kills + 1) {
      problems.push(`${party.name}'s socket connected ${party.client.connects} times for ${party.kills} kills${CLUSTER ? ' of its node' : ''}`);
    }
  }
  let activeChecked = 0;
  for (const [id, entry] of journal) {
    if (!ACTIVE.has(entry.final)) continue;
    activeChecked += 1;
    const seen = entry.rider.client.all('booking').filter((booking) => booking.id === id);
    const last = seen[seen.length - 1];
    if (last?.status !== entry.final) problems.push(`${id}: ${entry.rider.name}'s socket last heard ${last?.status}, the server says ${entry.final}`);
  }
  return { problems, activeChecked };
}

/**
 * A rider or driver whose requests and socket go to node `node` (an index
 * in URLS) while it is up; `kills` counts the kills its socket was there for.
 */
function makeParty(name, session, node) {
  return { name, ...session, node, kills: 0, client: Client.withToken(name, session.token, nodesFrom(node)) };
}

run('crash', async () => {
  const [riderSessions, driverSessions] = await Promise.all([
    Promise.all([1, 2, 3, 4, 5].map((number) => signIn(`rider${number}@demo.wayfare`))),
    Promise.all(DRIVER_NUMBERS.map((number) => signIn(`driver${number}@demo.wayfare`))),
  ]);
  // On a cluster, a rider and the drivers near it mostly sit on different nodes.
  const riders = riderSessions.map((session, index) => makeParty(`rider${index + 1}`, session, index % URLS.length));
  const drivers = driverSessions.map((session, index) => makeParty(`driver${DRIVER_NUMBERS[index]}`, session, (index + 1) % URLS.length));
  const everyone = [...riders, ...drivers];
  await Promise.all(everyone.map((party) => party.client.connected()));
  for (const driver of drivers) {
    const online = await api('POST', '/drivers/me/status', { token: driver.token, body: { driverActiveStatus: true }, base: URLS[driver.node] });
    assert.equal(online.status, 200, `${driver.name} goes online`);
    startDriver(driver);
  }
  await sleep(1500);
  log(`${riders.length} riders and ${drivers.length} streaming drivers connected${CLUSTER ? ` to ${URLS.length} nodes` : ''}; booking ${RATE}/s`);

  const interval = (1000 * riders.length) / RATE;
  const loops = riders.map((rider, index) => riderLoop(rider, interval, (interval / riders.length) * index));
  const lines = readline.createInterface({ input: process.stdin });
  const restarted = [];
  lines.on('line', (line) => line.trim() === '@@RESTARTED' && restarted.shift()?.());
  for (let kill = 1; kill <= KILLS; kill += 1) {
    await sleep(KILL_EVERY_MS);
    const node = (kill - 1) % URLS.length;
    const there = everyone.filter((party) => party.client.url === URLS[node]);
    for (const party of there) party.kills += 1;
    const back = new Promise((resolve) => restarted.push(resolve));
    log(`kill ${kill}: ${counts.booked} bookings acknowledged so far`);
    if (CLUSTER) {
      log(`kill ${kill}: node ${node} (${URLS[node]}), with ${there.length} sockets`);
      console.log(`@@KILL ${node}`);
    } else {
      console.log('@@KILL');
    }
    await back;
    log(`kill ${kill}: ${CLUSTER ? `node ${node}` : 'the server'} is back`);
  }
  lines.close();
  await sleep(AFTER_MS);
  state.loading = false;
  await Promise.all(loops);
  await Promise.all(cancels);
  // Let the trips under way finish, then stop taking offers.
  await sleep(3000);
  state.stopping = true;
  await Promise.all(drivers.map((driver) => driver.busy));
  await Promise.all(drivers.map((driver) => driver.streaming));
  for (const driver of drivers) if (driver.failure) throw driver.failure;
  await sleep(1000);

  const { problems, activeChecked } = await verify(riders, drivers);
  const result = { ...counts, kills: KILLS, journal: journal.size, activeChecked, problems: problems.length };
  if (CLUSTER) {
    const socketFailovers = everyone.reduce((sum, party) => sum + party.client.failovers, 0);
    Object.assign(result, { nodes: URLS.length, ...clusterCounts, socketFailovers });
  }
  console.log(`RESULT ${JSON.stringify(result)}`);
  assert.deepEqual(problems, [], `what clients were told and what the server says disagree:\n${problems.slice(0, 20).join('\n')}`);
  assert.ok(counts.booked > 0 && counts.accepted > 0 && counts.paid > 0, `the load did something: ${JSON.stringify(counts)}`);
  for (const party of everyone) party.client.close();
});
