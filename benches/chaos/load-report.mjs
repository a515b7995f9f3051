#!/usr/bin/env node
// The load generator's checks for benches/chaos/cluster.sh: reads load.mjs's
// output (its `RESULT {json}` line) and what load-on-cluster.mjs kept
// (TALLY and TALLY.sockets), prints the figures, and exits 1 on a problem.
//
//   node load-report.mjs LOAD_LOG TALLY
//
// load.mjs fails itself on any dropped socket or unacknowledged update;
// under chaos both happen by design (nodes die with sockets and updates in
// flight), so this tells them apart: an update may go unacknowledged only
// when it was in flight on a connection that dropped. Problems: an update
// unacknowledged on a connection that stayed up, or still waiting for a
// reconnection when the load ended; a location refused with another code
// than `unavailable` (the server asking to retry); a booking or a cancel
// refused with a 4xx (a 5xx or a network failure is the balancer or a dying
// node, to retry); no load at all.

import { existsSync, readFileSync } from 'node:fs';

const [logPath, tallyPath] = process.argv.slice(2);
if (!logPath || !tallyPath) {
  console.error('usage: node load-report.mjs LOAD_LOG TALLY');
  process.exit(2);
}
const problems = [];
const say = (line) => console.log(`  ${line}`);

const log = existsSync(logPath) ? readFileSync(logPath, 'utf8') : '';
const resultLine = log.split('\n').findLast((line) => line.startsWith('RESULT '));
if (!resultLine) {
  console.log('  load.mjs printed no RESULT: the end of its output:');
  for (const line of log.trimEnd().split('\n').slice(-15)) say(`| ${line}`);
  process.exit(1);
}
const result = JSON.parse(resultLine.slice('RESULT '.length));
const tally = existsSync(tallyPath) ? JSON.parse(readFileSync(tallyPath, 'utf8')) : { statuses: {} };
const sockets = existsSync(`${tallyPath}.sockets`)
  ? readFileSync(`${tallyPath}.sockets`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  : [];

// ---- location updates -------------------------------------------------------------
const location = result.location;
const drops = sockets.filter((line) => line.event === 'close');
const refusedAtHandshake = sockets.filter((line) => line.event === 'refused');
const ends = sockets.filter((line) => line.event === 'end');
const lostAtDrops = drops.reduce((sum, line) => sum + line.lost, 0);
const pendingAtEnd = ends.filter((line) => line.connected).reduce((sum, line) => sum + line.pending, 0);
const notReconnected = ends.filter((line) => !line.connected);
const waitingAtEnd = notReconnected.reduce((sum, line) => sum + line.buffered + line.pending, 0);
const reasons = {};
for (const line of drops) reasons[line.reason] = (reasons[line.reason] ?? 0) + 1;

say(`drivers: ${result.drivers} streaming for ${result.seconds} s at ${result.offered_rate} updates/s offered`);
say(
  `location updates: ${location.sent} sent, ${location.acked} acknowledged, ${location.unacked} unacknowledged; ` +
    `${location.acked_per_second}/s acknowledged after the warm-up`,
);
say(
  `  ack latency: p50 ${location.ack_latency.p50_ms} ms, p90 ${location.ack_latency.p90_ms} ms, ` +
    `p99 ${location.ack_latency.p99_ms} ms, max ${location.ack_latency.max_ms} ms`,
);
say(`  socket drops: ${drops.length} (${JSON.stringify(reasons)}), refused at the handshake and retried: ${refusedAtHandshake.length}`);
say(`  unacknowledged because in flight when their connection dropped: ${lostAtDrops}`);
say(`  unacknowledged on a connection that stayed up (after load.mjs's 5 s drain): ${pendingAtEnd}`);
say(`  sockets not reconnected when the load ended: ${notReconnected.length} (${waitingAtEnd} updates waiting in them)`);
const unexplained = location.unacked - lostAtDrops - pendingAtEnd - waitingAtEnd;
if (pendingAtEnd > 0) problems.push(`${pendingAtEnd} location updates never acknowledged on a connection that stayed up`);
if (notReconnected.length > 0) problems.push(`${notReconnected.length} driver sockets had not reconnected when the load ended`);
if (unexplained !== 0) problems.push(`${unexplained} unacknowledged location updates not accounted for by a dropped connection`);
const refusals = Object.entries(location.refusals);
say(`  refused updates: ${refusals.length ? JSON.stringify(location.refusals) : 'none'}`);
for (const [code, count] of refusals) {
  if (code !== 'unavailable') problems.push(`${count} location updates refused with ${code}`);
}
if (location.acked === 0) problems.push('no location update was acknowledged');

// ---- bookings ----------------------------------------------------------------------
const offer = result.booking_to_offer;
const created = result.booking_create_response;
const bookSeconds = Math.max(1, result.seconds - result.warmup - 1);
say(
  `booking-to-offer over the whole run (${offer.count} bookings offered, ${(offer.count / bookSeconds).toFixed(1)}/s): ` +
    `p50 ${offer.p50_ms} ms, p90 ${offer.p90_ms} ms, p99 ${offer.p99_ms} ms, max ${offer.max_ms} ms`,
);
say(`  without an offer within 5 s: ${offer.missed}; unroutable points: ${offer.unroutable}; load.mjs's booking errors: ${offer.errors}`);
say(`  POST /bookings answered in p50 ${created.p50_ms} ms, p99 ${created.p99_ms} ms, max ${created.max_ms} ms (${created.count} requests)`);
for (const [kind, label] of [
  ['book', 'POST /bookings'],
  ['cancel', 'cancels'],
]) {
  const counts = tally.statuses?.[kind] ?? {};
  say(`  ${label} by answer: ${Object.keys(counts).length ? JSON.stringify(counts) : 'none'}`);
  for (const [status, count] of Object.entries(counts)) {
    const refusedByServer = /^4\d\d/.test(status) && !(kind === 'book' && status.includes('place_to_coords_error'));
    if (refusedByServer) problems.push(`${count} ${label} answered ${status}`);
  }
}
if (offer.count === 0) problems.push('no booking was offered to a driver');
const feed = result.drivers_feed;
if (feed) say(`console drivers feed: ${feed.messages} messages, the last with ${feed.lastSize} drivers`);

if (problems.length) {
  console.log(`  PROBLEMS: ${problems.join('; ')}`);
  process.exit(1);
}
console.log('  no problem');
