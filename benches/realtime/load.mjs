#!/usr/bin/env node
// Load generator for the realtime edge (docs/benchmarks.md, "Realtime edge
// (Socket.IO)"), with the official socket.io-client.
//
// Against a running `wayfare serve --demo` whose demo has at least
// `--drivers` drivers (seed them with WAYFARE_DEMO_SEED__DRIVERS on a fresh
// data directory, and lift the sign-in rate limits, see the benchmark notes):
//
// 1. signs in `--drivers` demo drivers (driver1@demo.wayfare, …) through the
//    dev outbox, puts them online and connects one socket each, spread over
//    `--workers` worker threads; one admin socket, on a thread of its own,
//    watches the console feed;
// 2. sends `location` updates with acks at `--rate` updates per second in
//    total (open loop, latency from each update's intended send time;
//    `--rate 0` sends as fast as acks come back, one in flight per socket)
//    for `--seconds`, and measures the acknowledged updates per second and
//    the ack latency after `--warmup` seconds;
// 3. meanwhile books `--booking-rate` rides per second with the first
//    `--riders` demo riders and measures booking-to-offer latency: to the
//    first `offer` of that booking arriving at a driver's socket. Each
//    booking is cancelled once offered, so the drivers stay free. Open loop
//    by default: booking i is due at start + i / rate whatever the earlier
//    ones are doing, and its latency is timed from that intended time, so a
//    stall in the server (or here) shows in the percentiles instead of
//    thinning the load (no coordinated omission); the rates actually sent
//    and offered are printed beside them. `--booking-loop closed` is the
//    old way (each rider books again once its last booking was offered). With
//    `--warmup-booking-rate R` it also books R rides per second during the
//    warm-up, unmeasured (the soak warms the offer path up this way).
// 4. with `--keep-bookings B` (the console benchmark, benches/console), also
//    keeps B bookings open for the whole run: booked at the start, never
//    cancelled, their offers never answered, so they go through wave after
//    wave of offers and expiries (the engine retries a NEW booking until its
//    30-minute auto-cancel); the count is read back every 10 s from
//    GET /dispatch/active and topped up to B.
//
// `--console 0` opens no admin socket (so a benchmark can count its own
// consoles); `--ready-file PATH` is written once the drivers are streaming
// and the kept bookings are made, for a script that measures meanwhile.
//
// With `--server-pid PID` (Linux) it also reports the server's CPU time per
// acknowledged update over the measured window.
//
// Prints the figures and a `RESULT {json}` line; exits 1 if an update was
// refused or never acknowledged, a socket dropped, or a booking got no offer.

import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { readFileSync, writeFileSync } from 'node:fs';
import { io } from 'socket.io-client';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The demo city's centre (http/src/demo.rs): drivers roam within a few km.
const CENTRE = { lat: 39.286, lng: -76.58 };
const KM_PER_DEGREE = 111.195;

function parseArgs(argv) {
  const options = {
    url: 'http://127.0.0.1:8080',
    drivers: 2000,
    firstDriver: 1,
    workers: 2,
    rate: 20000,
    seconds: 30,
    warmup: 5,
    bookingRate: 5,
    bookingLoop: 'open',
    riders: 20,
    warmupBookingRate: 0,
    carType: 'Economy',
    serverPid: 0,
    keepBookings: 0,
    console: 1,
    readyFile: '',
  };
  for (let index = 2; index < argv.length; index += 2) {
    const name = argv[index].replace(/^--/, '').replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
    const value = argv[index + 1];
    if (!(name in options) || value === undefined) {
      console.error(`unknown or incomplete option ${argv[index]}; options: ${Object.keys(options).join(', ')}`);
      process.exit(2);
    }
    options[name] = typeof options[name] === 'number' ? Number(value) : value;
  }
  return options;
}

async function api(url, method, path, { token, body } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function must(url, status, method, path, options) {
  const answer = await api(url, method, path, options);
  if (answer.status !== status) {
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body;
}

async function signIn(url, contact) {
  await must(url, 200, 'POST', '/auth/otp/request', { body: { contact } });
  const outbox = await must(url, 200, 'GET', `/dev/outbox?to=${encodeURIComponent(contact)}`);
  return must(url, 200, 'POST', '/auth/otp/verify', { body: { contact, code: outbox.messages[0].code } });
}

/** Runs `task` over `items`, at most `limit` at a time. */
async function pool(items, limit, task) {
  const results = [];
  let next = 0;
  async function lane() {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** A point at most `km` from the centre. */
function randomPoint(km) {
  const distance = Math.sqrt(Math.random()) * km;
  const angle = Math.random() * 2 * Math.PI;
  return {
    lat: CENTRE.lat + (distance * Math.cos(angle)) / KM_PER_DEGREE,
    lng: CENTRE.lng + (distance * Math.sin(angle)) / (KM_PER_DEGREE * Math.cos((CENTRE.lat * Math.PI) / 180)),
  };
}

/** User and system CPU seconds a process has used so far (Linux). */
function cpuSeconds(pid) {
  if (!pid) return null;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second).
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

// The server's own histogram of dispatch latency (Book Now booking created →
// offers sent), cumulative counts by bucket bound `le` in seconds: it tells
// the server's share of booking-to-offer from the sockets' and this process's.
async function dispatchBuckets(url) {
  try {
    const response = await fetch(`${url}/metrics`);
    if (!response.ok) return null;
    const counts = {};
    for (const line of (await response.text()).split('\n')) {
      const match = line.match(/^wayfare_dispatch_latency_seconds_bucket\{(?:[^}]*,)?le="([^"]+)"[^}]*\} (\d+)/);
      if (match) counts[match[1]] = Number(match[2]);
    }
    return counts;
  } catch {
    return null;
  }
}

/**
 * How late this thread ran what was due (timers, sockets' frames) while
 * `stop` was not yet called: a latency timed on this thread may include up to
 * that much of the generator's own delay.
 */
function loopDelay() {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const ms = (nanoseconds) => Math.round(nanoseconds / 1e4) / 100;
  return () => {
    histogram.disable();
    return { p50_ms: ms(histogram.percentile(50)), p99_ms: ms(histogram.percentile(99)), max_ms: ms(histogram.max) };
  };
}

function percentile(sorted, fraction) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

function summarise(samples) {
  const sorted = Float64Array.from(samples).sort();
  const round = (value) => (value === null ? null : Math.round(value * 100) / 100);
  return {
    count: sorted.length,
    p50_ms: round(percentile(sorted, 0.5)),
    p90_ms: round(percentile(sorted, 0.9)),
    p99_ms: round(percentile(sorted, 0.99)),
    p999_ms: round(percentile(sorted, 0.999)),
    max_ms: round(sorted.length ? sorted[sorted.length - 1] : null),
  };
}

// ---- worker: a share of the drivers -------------------------------------------

async function runWorker({ url, numbers }) {
  const drivers = await pool(numbers, 16, async (number) => {
    const { token } = await signIn(url, `driver${number}@demo.wayfare`);
    await must(url, 200, 'POST', '/drivers/me/status', { token, body: { driverActiveStatus: true } });
    return { number, token, position: randomPoint(2.5), heading: Math.random() * 360 };
  });
  let dropped = 0;
  let closing = false;
  // Every event the drivers' sockets are sent (acks aside), by name: what
  // the server sends them besides acks costs both sides.
  const received = {};
  await pool(drivers, 100, (driver) =>
    new Promise((resolve, reject) => {
      driver.socket = io(url, { auth: { token: driver.token }, transports: ['websocket'], reconnection: false });
      driver.socket.once('connect', resolve);
      driver.socket.once('connect_error', (error) => reject(new Error(`driver${driver.number}: ${error.message}`)));
      driver.socket.on('disconnect', () => {
        if (!closing) dropped += 1;
      });
      driver.socket.on('offer', (offer) => parentPort.postMessage({ type: 'offer', booking: offer.booking.id, at: now() }));
      driver.socket.onAny((event) => {
        received[event] = (received[event] ?? 0) + 1;
      });
    }),
  );
  parentPort.postMessage({ type: 'ready', drivers: drivers.length });
  const plan = await new Promise((resolve) => parentPort.once('message', resolve));

  const latencies = [];
  const refusals = {};
  let sent = 0;
  let sentInWindow = 0;
  let acked = 0;
  let ackedInWindow = 0;
  const measureFrom = plan.start + plan.warmup * 1000;
  const end = plan.start + plan.seconds * 1000;

  // `intendedAt`: when the open loop's schedule wanted this update sent.
  const send = (driver, onAck, intendedAt) => {
    // A small step in a slowly turning direction, like a car in town.
    driver.heading = (driver.heading + (Math.random() - 0.5) * 20 + 360) % 360;
    const step = 0.01 / KM_PER_DEGREE;
    const radians = (driver.heading * Math.PI) / 180;
    driver.position.lat += step * Math.cos(radians);
    driver.position.lng += step * Math.sin(radians);
    const startedAt = intendedAt ?? now();
    const update = { lat: driver.position.lat, lng: driver.position.lng, heading: driver.heading, speed: 8, accuracy: 5, at: Date.now() };
    sent += 1;
    if (startedAt >= measureFrom && startedAt < end) sentInWindow += 1;
    driver.socket.emit('location', update, (ack) => {
      const at = now();
      acked += 1;
      if (ack && ack.ok === true) {
        if (startedAt >= measureFrom && at <= end) {
          latencies.push(at - startedAt);
          ackedInWindow += 1;
        }
      } else {
        const code = ack?.error?.code ?? 'no_ack_body';
        refusals[code] = (refusals[code] ?? 0) + 1;
      }
      onAck?.();
    });
  };

  let stopLoopDelay = null;
  setTimeout(() => (stopLoopDelay = loopDelay()), measureFrom - now());
  let delay = null;
  setTimeout(() => (delay = stopLoopDelay?.()), end - now());

  if (plan.rate > 0) {
    // Open loop: keep to the planned rate whatever the acks do.
    let next = 0;
    await new Promise((resolve) => {
      const timer = setInterval(() => {
        const at = now();
        const due = Math.min(plan.seconds, (at - plan.start) / 1000) * plan.rate;
        while (sent < due) {
          send(drivers[next % drivers.length], undefined, plan.start + (sent / plan.rate) * 1000);
          next += 1;
        }
        if (at >= end) {
          clearInterval(timer);
          resolve();
        }
      }, 1);
    });
  } else {
    // Closed loop: each socket sends its next update when the last is acked.
    await new Promise((resolve) => {
      let running = drivers.length;
      for (const driver of drivers) {
        const loop = () => {
          if (now() >= end) {
            running -= 1;
            if (running === 0) resolve();
            return;
          }
          send(driver, loop);
        };
        loop();
      }
    });
  }
  // Let the last acks come back.
  const drainUntil = now() + 5000;
  while (acked < sent && now() < drainUntil) await sleep(10);
  closing = true;
  for (const driver of drivers) driver.socket.close();
  parentPort.postMessage({ type: 'done', latencies, sent, sentInWindow, acked, ackedInWindow, refusals, dropped, received, delay, windowSeconds: (end - measureFrom) / 1000 });
}

// ---- worker: the admin's console -----------------------------------------------

/** Watches the console's drivers feed until told to stop, then reports what came. */
async function runConsole({ url, consoleToken }) {
  const feed = { messages: 0, lastSize: 0 };
  const socket = io(url, { auth: { token: consoleToken }, transports: ['websocket'] });
  socket.on('drivers', (list) => {
    feed.messages += 1;
    feed.lastSize = list.length;
  });
  await new Promise((resolve) => parentPort.once('message', resolve));
  socket.close();
  parentPort.postMessage(feed);
}

// ---- main: the workers, the console and the bookings ----------------------------

async function main() {
  const options = parseArgs(process.argv);
  const { url } = options;
  const health = await fetch(`${url}/healthz`).catch((error) => ({ ok: false, error }));
  if (!health.ok) {
    console.error(`no wayfare server answers at ${url}/healthz`);
    process.exit(2);
  }

  const riders = await Promise.all(Array.from({ length: options.riders }, (_, index) => signIn(url, `rider${index + 1}@demo.wayfare`)));
  const admin = await signIn(url, 'admin@demo.wayfare');
  // The console's socket on a thread of its own: parsing the whole map (about
  // 1 MB at 10,000 drivers) would otherwise hold up the bookings timed here.
  const consoleWorker = options.console ? new Worker(new URL(import.meta.url), { workerData: { url, consoleToken: admin.token } }) : null;

  const numbers = Array.from({ length: options.drivers }, (_, index) => options.firstDriver + index);
  const shares = Array.from({ length: options.workers }, (_, worker) => numbers.filter((_, index) => index % options.workers === worker));
  const firstOffers = new Map();
  const offerWaiters = new Map();
  const workers = shares.map((share) => new Worker(new URL(import.meta.url), { workerData: { url, numbers: share } }));
  const setupStarted = now();
  const ready = workers.map(
    (worker) =>
      new Promise((resolve, reject) => {
        worker.on('error', reject);
        worker.on('exit', (code) => code !== 0 && reject(new Error(`a worker exited with ${code}`)));
        worker.on('message', (message) => {
          if (message.type === 'ready') resolve(message.drivers);
          if (message.type === 'offer' && !firstOffers.has(message.booking)) {
            firstOffers.set(message.booking, message.at);
            offerWaiters.get(message.booking)?.(message.at);
          }
        });
      }),
  );
  const connected = (await Promise.all(ready)).reduce((sum, count) => sum + count, 0);
  console.log(`${connected} drivers signed in, online and connected in ${((now() - setupStarted) / 1000).toFixed(1)} s (${options.workers} worker threads)`);

  const plan = { start: now() + 100, rate: options.rate / options.workers, seconds: options.seconds, warmup: options.warmup };
  const results = workers.map((worker) => new Promise((resolve) => worker.on('message', (message) => message.type === 'done' && resolve(message))));
  for (const worker of workers) worker.postMessage(plan);

  // Bookings kept open for the whole run (--keep-bookings), topped up every 10 s.
  const kept = { made: 0, errors: [], lastActive: 0 };
  const book = async (rider) => {
    const body = { pickup: { ...randomPoint(2), add: 'Console bench pickup' }, drop: { ...randomPoint(3), add: 'Console bench drop' }, carType: options.carType, bookLater: false };
    const created = await api(url, 'POST', '/bookings', { token: rider.token, body });
    if (created.status === 201) kept.made += 1;
    else kept.errors.push(`${created.status} ${JSON.stringify(created.body)}`);
  };
  const topUp = async () => {
    const active = await must(url, 200, 'GET', '/dispatch/active', { token: admin.token });
    kept.lastActive = active.items.length;
    const missing = Math.max(0, options.keepBookings - active.items.length);
    await pool(Array.from({ length: missing }, (_, index) => riders[index % riders.length]), 8, book);
    return missing;
  };
  let keeping = null;
  if (options.keepBookings > 0) {
    const made = await topUp();
    console.log(`${made} bookings made and kept open (${kept.errors.length} refused)`);
    keeping = (async () => {
      while (now() < plan.start + plan.seconds * 1000 - 10_000) {
        await sleep(10_000);
        await topUp().catch((error) => kept.errors.push(String(error)));
      }
    })();
  }
  if (options.readyFile) writeFileSync(options.readyFile, JSON.stringify({ drivers: connected, keptBookings: kept.made }) + '\n');

  // Bookings, one rider at a time each: during the warm-up at
  // --warmup-booking-rate (0: none), unmeasured, so that the drivers' sockets
  // have carried offers before the soak compares memory; then from the end
  // of the warm-up to the end of the run at --booking-rate, measured.
  const bookingLatencies = [];
  const createLatencies = [];
  let missedOffers = 0;
  let unroutable = 0;
  const bookingErrors = [];
  let bookingsSent = 0;
  const sendLags = [];
  /** One booking timed from `began` (its intended send time in the open loop). */
  async function bookOne(rider, began, measured) {
    const body = { pickup: { ...randomPoint(1.5), add: 'Load test pickup' }, drop: { ...randomPoint(3), add: 'Load test drop' }, carType: options.carType, bookLater: false };
    if (measured) {
      bookingsSent += 1;
      sendLags.push(now() - began);
    }
    const created = await api(url, 'POST', '/bookings', { token: rider.token, body });
    if (measured) createLatencies.push(now() - began);
    if (created.body?.error?.code === 'place_to_coords_error') {
      // A random point in the harbour has no road to it: the rider's mistake, not the server's.
      unroutable += 1;
    } else if (created.status !== 201) {
      bookingErrors.push(`${created.status} ${JSON.stringify(created.body)}`);
    } else {
      const id = created.body.id;
      const offeredAt =
        firstOffers.get(id) ??
        (await new Promise((resolve) => {
          offerWaiters.set(id, resolve);
          setTimeout(() => resolve(null), 5000);
        }));
      offerWaiters.delete(id);
      if (offeredAt === null) missedOffers += 1;
      else if (measured) bookingLatencies.push(offeredAt - began);
      const cancelled = await api(url, 'POST', `/bookings/${id}/cancel`, { token: rider.token, body: { reason: 'Changed my plans' } });
      if (cancelled.status !== 200) bookingErrors.push(`cancel ${cancelled.status} ${JSON.stringify(cancelled.body)}`);
    }
  }
  async function bookRides(rate, until, measured) {
    if (!(rate > 0)) return;
    if (options.bookingLoop === 'open') {
      // Booking i is due at from + i / rate; every due one is sent at once,
      // whatever the earlier ones are waiting for.
      const from = now();
      const interval = 1000 / rate;
      const inflight = [];
      let index = 0;
      await new Promise((resolve) => {
        const timer = setInterval(() => {
          const at = Math.min(now(), until);
          while (from + index * interval <= at) {
            inflight.push(bookOne(riders[index % riders.length], from + index * interval, measured));
            index += 1;
          }
          if (now() >= until) {
            clearInterval(timer);
            resolve();
          }
        }, 1);
      });
      await Promise.all(inflight);
      return;
    }
    const interval = (1000 * riders.length) / rate;
    await Promise.all(
      riders.map(async (rider, index) => {
        await sleep((interval / riders.length) * index);
        while (now() < until) {
          const began = now();
          await bookOne(rider, began, measured);
          await sleep(began + interval - now());
        }
      }),
    );
  }
  await bookRides(options.warmupBookingRate, plan.start + plan.warmup * 1000, false);
  await sleep(plan.start + plan.warmup * 1000 - now());
  const cpuAtStart = cpuSeconds(options.serverPid);
  const dispatchAtStart = await dispatchBuckets(url);
  const clientCpuAtStart = process.cpuUsage();
  const stopLoopDelay = loopDelay();
  let cpuAtEnd = null;
  let clientCpu = null;
  let mainDelay = null;
  setTimeout(() => {
    cpuAtEnd = cpuSeconds(options.serverPid);
    clientCpu = process.cpuUsage(clientCpuAtStart);
    mainDelay = stopLoopDelay();
  }, plan.start + plan.seconds * 1000 - now());
  await bookRides(options.bookingRate, plan.start + plan.seconds * 1000 - 1000, true);

  const dispatchAtEnd = await dispatchBuckets(url);
  const done = await Promise.all(results);
  await keeping;
  const feed = { messages: 0, lastSize: 0 };
  if (consoleWorker) {
    const counted = new Promise((resolve) => consoleWorker.once('message', resolve));
    consoleWorker.postMessage('stop');
    Object.assign(feed, await counted);
    await consoleWorker.terminate();
  }
  for (const worker of workers) await worker.terminate();

  const latencies = done.flatMap((result) => result.latencies);
  const refusals = {};
  for (const result of done) for (const [code, count] of Object.entries(result.refusals)) refusals[code] = (refusals[code] ?? 0) + count;
  const sent = done.reduce((sum, result) => sum + result.sent, 0);
  const acked = done.reduce((sum, result) => sum + result.acked, 0);
  const ackedInWindow = done.reduce((sum, result) => sum + result.ackedInWindow, 0);
  const sentInWindow = done.reduce((sum, result) => sum + result.sentInWindow, 0);
  // The bookings' measured span: from the end of the warm-up to a second before the end.
  const bookingSeconds = plan.seconds - plan.warmup - 1;
  const perSecond = (count, seconds) => Math.round((count / seconds) * 10) / 10;
  const dropped = done.reduce((sum, result) => sum + result.dropped, 0);
  const driverEvents = {};
  for (const result of done) for (const [event, count] of Object.entries(result.received)) driverEvents[event] = (driverEvents[event] ?? 0) + count;
  const windowSeconds = done[0].windowSeconds;
  const summary = {
    drivers: connected,
    workers: options.workers,
    offered_rate: options.rate,
    seconds: options.seconds,
    warmup: options.warmup,
    location: { sent, acked, unacked: sent - acked, sent_per_second: Math.round(sentInWindow / windowSeconds), acked_per_second: Math.round(ackedInWindow / windowSeconds), ack_latency: summarise(latencies), refusals, dropped_sockets: dropped },
    booking_to_offer: {
      loop: options.bookingLoop,
      scheduled_per_second: options.bookingRate,
      sent_per_second: perSecond(bookingsSent, bookingSeconds),
      offered_per_second: perSecond(bookingLatencies.length, bookingSeconds),
      ...summarise(bookingLatencies),
      missed: missedOffers,
      errors: bookingErrors.length,
      unroutable,
    },
    // How late this process sent each booking against its schedule (open loop).
    booking_send_lag: summarise(sendLags),
    booking_create_response: summarise(createLatencies),
    drivers_feed: feed,
    kept_bookings: options.keepBookings ? { wanted: options.keepBookings, made: kept.made, active_at_last_count: kept.lastActive, errors: kept.errors.length } : undefined,
    driver_events: driverEvents,
    // The generator's own event-loop delay: the bookings' thread, then each drivers' worker.
    loop_delay: { bookings: mainDelay, drivers: done.map((result) => result.delay) },
  };
  if (dispatchAtStart && dispatchAtEnd) {
    const within = (bound) => (dispatchAtEnd[bound] ?? 0) - (dispatchAtStart[bound] ?? 0);
    summary.server_dispatch = { count: within('+Inf'), under_10_ms: within('0.01'), under_25_ms: within('0.025'), under_50_ms: within('0.05'), under_100_ms: within('0.1') };
  }
  if (clientCpu) {
    // The whole load generator process: its worker threads and this one.
    summary.client_cpu_cores = Math.round(((clientCpu.user + clientCpu.system) / 1e6 / windowSeconds) * 100) / 100;
  }
  if (cpuAtStart && cpuAtEnd) {
    const user = cpuAtEnd.user - cpuAtStart.user;
    const system = cpuAtEnd.system - cpuAtStart.system;
    summary.server_cpu = {
      user_seconds: Math.round(user * 100) / 100,
      system_seconds: Math.round(system * 100) / 100,
      cores: Math.round(((user + system) / windowSeconds) * 100) / 100,
      microseconds_per_update: Math.round(((user + system) * 1e6) / Math.max(1, ackedInWindow)),
    };
  }
  const location = summary.location;
  console.log(`location updates: ${options.rate > 0 ? `offered ${options.rate}/s` : 'closed loop'} for ${options.seconds} s, measured over the last ${windowSeconds} s`);
  console.log(`  sustained: ${location.sent_per_second} sent/s, ${location.acked_per_second} acknowledged updates/s (${acked}/${sent} acked overall)`);
  console.log(`  ack latency${options.rate > 0 ? ' from the intended send time' : ''}: p50 ${location.ack_latency.p50_ms} ms, p90 ${location.ack_latency.p90_ms} ms, p99 ${location.ack_latency.p99_ms} ms, p99.9 ${location.ack_latency.p999_ms} ms, max ${location.ack_latency.max_ms} ms`);
  const offers = summary.booking_to_offer;
  console.log(
    `booking-to-offer, ${offers.loop} loop: scheduled ${offers.scheduled_per_second}/s, sent ${offers.sent_per_second}/s, offered ${offers.offered_per_second}/s (${bookingLatencies.length} bookings): ` +
      `p50 ${offers.p50_ms} ms, p99 ${offers.p99_ms} ms, p99.9 ${offers.p999_ms} ms, max ${offers.max_ms} ms; ${missedOffers} without an offer`,
  );
  if (options.bookingLoop === 'open') console.log(`  (bookings sent behind schedule by p99 ${summary.booking_send_lag.p99_ms} ms, max ${summary.booking_send_lag.max_ms} ms)`);
  console.log(`  (POST /bookings answered in p50 ${summary.booking_create_response.p50_ms} ms, p99 ${summary.booking_create_response.p99_ms} ms)`);
  if (summary.server_dispatch) {
    const dispatch = summary.server_dispatch;
    console.log(`  (the server's dispatch, booking created to offers sent, for ${dispatch.count}: under 10 ms ${dispatch.under_10_ms}, 25 ms ${dispatch.under_25_ms}, 50 ms ${dispatch.under_50_ms}, 100 ms ${dispatch.under_100_ms})`);
  }
  if (summary.server_cpu) {
    const cpu = summary.server_cpu;
    console.log(`server CPU over the window: ${cpu.cores} cores (user ${cpu.user_seconds} s, system ${cpu.system_seconds} s), ${cpu.microseconds_per_update} µs per update including everything else it did`);
  }
  if (summary.client_cpu_cores !== undefined) console.log(`load generator CPU over the window: ${summary.client_cpu_cores} cores`);
  const delays = [summary.loop_delay.bookings, ...summary.loop_delay.drivers].filter(Boolean);
  console.log(`load generator's event-loop delay (p99/max ms), bookings' thread then drivers' workers: ${delays.map((delay) => `${delay.p99_ms}/${delay.max_ms}`).join(', ')}`);
  console.log(`console drivers feed: ${feed.messages} messages, the last with ${feed.lastSize} drivers`);
  console.log(`events the drivers were sent over the whole run: ${JSON.stringify(driverEvents)}`);
  if (kept.errors.length) console.log(`kept-booking errors: ${kept.errors.slice(0, 5).join('; ')}`);
  if (bookingErrors.length) console.log(`booking errors: ${bookingErrors.slice(0, 5).join('; ')}`);
  console.log(`RESULT ${JSON.stringify(summary)}`);
  const failed = Object.keys(refusals).length > 0 || dropped > 0 || sent !== acked || missedOffers > 0 || bookingErrors.length > 0 || kept.errors.length > 0 || ackedInWindow === 0;
  process.exit(failed ? 1 : 0);
}

if (isMainThread) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else {
  (workerData.consoleToken ? runConsole(workerData) : runWorker(workerData)).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
