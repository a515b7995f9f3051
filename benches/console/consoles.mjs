#!/usr/bin/env node
// The server's CPU for the live dispatch console's feed (issue #15,
// docs/benchmarks.md "The live dispatch console"): against a running
// `wayfare serve --demo` whose drivers are streaming (benches/realtime/load.mjs
// with `--console 0`), opens 0, then 1, then 20 admin consoles — socket.io
// clients that join the dispatch room and ask for the hexagons as the
// console screen does, no browser — and reads the server's CPU time from
// /proc/PID/stat over a fixed window for each. The 0-console window is the
// baseline: what the drivers cost alone, and the admins' figures, which the
// server keeps computing when nobody watches.
//
//   node benches/console/consoles.mjs --url http://127.0.0.1:18200 --server-pid PID \
//     [--counts 0,1,20] [--seconds 30] [--settle 5]
//
// Prints one JSON line per count: {figure: "server_cpu", consoles, cores, …}.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

// socket.io-client lives with the load generator.
const require = createRequire(new URL('../realtime/package.json', import.meta.url));
const { io } = require('socket.io-client');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function parseArgs(argv) {
  const options = { url: 'http://127.0.0.1:18200', serverPid: 0, counts: '0,1,20', seconds: 30, settle: 5, resolution: 8 };
  for (let index = 2; index < argv.length; index += 2) {
    const name = argv[index].replace(/^--/, '').replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
    const value = argv[index + 1];
    if (!(name in options) || value === undefined) {
      console.error(`unknown or incomplete option ${argv[index]}; options: ${Object.keys(options).join(', ')}`);
      process.exit(2);
    }
    options[name] = typeof options[name] === 'number' ? Number(value) : value;
  }
  if (!options.serverPid) {
    console.error('--server-pid is needed: the CPU time is read from /proc/PID/stat');
    process.exit(2);
  }
  return options;
}

/** User plus system CPU seconds the process has used so far (Linux, 100 ticks a second). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function json(url, method, path, body) {
  const response = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function signInAdmin(url) {
  const contact = 'admin@demo.wayfare';
  await json(url, 'POST', '/auth/otp/request', { contact });
  const outbox = await json(url, 'GET', `/dev/outbox?to=${encodeURIComponent(contact)}`);
  const { token } = await json(url, 'POST', '/auth/otp/verify', { contact, code: outbox.messages[0].code });
  return token;
}

/** One console: connected, in the dispatch room, hexagons asked for; counts what it is sent. */
function openConsole(url, token, resolution) {
  const counts = { drivers: 0, dispatch: 0, booking: 0, console: 0, hexes: 0, lastDrivers: 0, bytes: 0 };
  const socket = io(url, { auth: { token }, transports: ['websocket'], reconnection: false });
  socket.onAny((event, payload) => {
    if (event in counts) counts[event] += 1;
    if (event === 'drivers' && Array.isArray(payload)) counts.lastDrivers = payload.length;
  });
  return new Promise((resolve, reject) => {
    socket.once('connect_error', (error) => reject(new Error(`console: ${error.message}`)));
    socket.once('connect', () => {
      socket.timeout(15_000).emit('console', { resolution }, (error) => {
        if (error) reject(new Error('console: no answer to the resolution'));
        else resolve({ socket, counts });
      });
    });
  });
}

async function main() {
  const options = parseArgs(process.argv);
  const counts = options.counts.split(',').map(Number);
  const token = await signInAdmin(options.url);
  const figures = [];
  for (const count of counts) {
    const consoles = await Promise.all(Array.from({ length: count }, () => openConsole(options.url, token, options.resolution)));
    // The first pushes (figures and hexagons at once on asking) are not the steady state.
    await sleep(options.settle * 1000);
    for (const { counts: seen } of consoles) for (const key of Object.keys(seen)) if (key !== 'lastDrivers') seen[key] = 0;
    const before = cpuSeconds(options.serverPid);
    const startedAt = performance.now();
    await sleep(options.seconds * 1000);
    const seconds = (performance.now() - startedAt) / 1000;
    const used = cpuSeconds(options.serverPid) - before;
    const dropped = consoles.filter(({ socket }) => !socket.connected).length;
    const first = consoles[0]?.counts;
    const figure = {
      figure: 'server_cpu',
      consoles: count,
      seconds: Math.round(seconds * 10) / 10,
      cores: Math.round((used / seconds) * 1000) / 1000,
      cpu_ms_per_second: Math.round((used / seconds) * 1000),
      drivers_messages_per_console: first ? first.drivers : null,
      drivers_per_message: first ? first.lastDrivers : null,
      other_messages_per_console: first ? { dispatch: first.dispatch, booking: first.booking, console: first.console, hexes: first.hexes } : null,
      dropped_consoles: dropped,
    };
    figures.push(figure);
    console.log(JSON.stringify(figure));
    for (const { socket } of consoles) socket.close();
    await sleep(2000);
  }
  // What the consoles add over the drivers alone, when the baseline was measured.
  const baseline = figures.find((figure) => figure.consoles === 0);
  if (baseline) {
    for (const figure of figures.filter((entry) => entry.consoles > 0)) {
      console.log(
        JSON.stringify({
          figure: 'server_cpu_for_consoles',
          consoles: figure.consoles,
          extra_cores: Math.round((figure.cores - baseline.cores) * 1000) / 1000,
          extra_cpu_ms_per_second: figure.cpu_ms_per_second - baseline.cpu_ms_per_second,
        }),
      );
    }
  }
  process.exit(figures.some((figure) => figure.dropped_consoles > 0 || (figure.consoles > 0 && !figure.drivers_messages_per_console)) ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
