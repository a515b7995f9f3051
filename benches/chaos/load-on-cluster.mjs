// Preloaded into benches/realtime/load.mjs by benches/chaos/cluster.sh
// (`node --import …/load-on-cluster.mjs load.mjs …`, in its main thread and
// in each worker thread), so that the load generator, written for one node,
// keeps its load on a cluster whose nodes are killed:
//
// - Sign-in goes to one node (CHAOS_SIGN_IN_URL): each node keeps its own dev
//   outbox, so a code asked for through the balancer may sit on another node
//   than the one that answers the outbox. Everything else goes where load.mjs
//   sends it (the balancer).
// - An answer that is not JSON (HAProxy's HTML pages for 502, 503, 504) and a
//   request that failed to connect become JSON errors with that status (a
//   network failure: 502), which load.mjs counts as an error instead of dying
//   on JSON.parse. /metrics answers 404: one node's dispatch histogram read
//   through the balancer twice is two nodes' counters.
// - The drivers' sockets reconnect, as a driver app does (load.mjs asks for
//   `reconnection: false`, so on one node a drop is a failure): the balancer
//   sends each to a node that is up, and updates emitted meanwhile are sent
//   on reconnection. A socket the server closed, or refused at the
//   handshake, tries again a second later. load.mjs still counts each drop
//   in `dropped_sockets`.
//
// With CHAOS_LOAD_TALLY=PATH it also keeps what load.mjs's report cannot
// tell apart: PATH gets, at exit, the statuses of POST /bookings and of the
// cancels (main thread), and PATH.sockets one line per socket drop with the
// updates whose acknowledgement it lost (in flight when the connection
// dropped: socket.io-client never calls back for them) and the reason, and
// one per socket that still waited for acks, or was not connected, when
// load.mjs closed it at the end.

import { isMainThread, threadId } from 'node:worker_threads';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const signInUrl = (process.env.CHAOS_SIGN_IN_URL ?? '').replace(/\/+$/, '');
const tally = process.env.CHAOS_LOAD_TALLY ?? '';

// ---- HTTP ---------------------------------------------------------------------------
const statuses = {};
const count = (kind, status) => {
  statuses[kind] ??= {};
  statuses[kind][status] = (statuses[kind][status] ?? 0) + 1;
};
const originalFetch = globalThis.fetch;
const json = (status, code, message) =>
  new Response(JSON.stringify({ error: { code, message } }), { status, headers: { 'content-type': 'application/json' } });

globalThis.fetch = async (input, init = {}) => {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const method = (init.method ?? 'GET').toUpperCase();
  if (url.pathname === '/metrics') return new Response('not read through the balancer', { status: 404 });
  let target = url.href;
  if (signInUrl && /^\/api\/v1\/(auth|dev)\//.test(url.pathname)) target = signInUrl + url.pathname + url.search;
  const kind =
    method === 'POST' && url.pathname === '/api/v1/bookings'
      ? 'book'
      : method === 'POST' && /^\/api\/v1\/bookings\/[^/]+\/cancel$/.test(url.pathname)
        ? 'cancel'
        : null;
  let response;
  try {
    response = await originalFetch(target, init);
  } catch (error) {
    if (kind) count(kind, 'network');
    return json(502, 'network_error', String(error.cause?.code ?? error.message));
  }
  const text = await response.text();
  let parses = true;
  let code;
  try {
    if (text) code = JSON.parse(text)?.error?.code;
  } catch {
    parses = false;
  }
  // A refusal is counted with its code: `400 place_to_coords_error`.
  if (kind) count(kind, response.status >= 400 && response.status < 500 && code ? `${response.status} ${code}` : response.status);
  if (!parses) return json(response.status, `http_${response.status}`, text.slice(0, 200));
  const empty = text === '' || [204, 304].includes(response.status);
  return new Response(empty ? null : text, { status: response.status, statusText: response.statusText, headers: response.headers });
};

if (isMainThread && tally) {
  process.on('exit', () => writeFileSync(tally, JSON.stringify({ statuses }) + '\n'));
}

// ---- sockets ------------------------------------------------------------------------
// The socket.io-client load.mjs imports: the same file, so the same classes.
const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = path.join(here, '..', 'realtime', 'node_modules', 'socket.io-client');
const exported = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')).exports['.'].import.node;
const { Manager, Socket } = await import(pathToFileURL(path.join(packageDir, exported)).href);

const reconnection = Manager.prototype.reconnection;
Manager.prototype.reconnection = function (...value) {
  return value.length ? reconnection.call(this, true) : reconnection.call(this);
};

const note = (line) => tally && appendFileSync(`${tally}.sockets`, JSON.stringify({ thread: threadId, at: Date.now(), ...line }) + '\n');

const disconnect = Socket.prototype.disconnect;
Socket.prototype.disconnect = function (...args) {
  this.chaosClosedByClient = true;
  // load.mjs closes its sockets at the end: what is still unanswered then.
  const pending = Object.keys(this.acks).length;
  if (pending > 0 || !this.connected) note({ event: 'end', connected: this.connected, pending, buffered: this.sendBuffer.length });
  return disconnect.apply(this, args);
};

const onclose = Socket.prototype.onclose;
Socket.prototype.onclose = function (reason, description) {
  // The acks _clearAcks is about to drop: updates sent, not buffered, never answered.
  const buffered = new Set(this.sendBuffer.map((packet) => String(packet.id)));
  const lost = Object.keys(this.acks).filter((id) => !buffered.has(id)).length;
  if (!this.chaosClosedByClient) note({ event: 'close', reason, lost, buffered: this.sendBuffer.length });
  return onclose.call(this, reason, description);
};

const emitReserved = Object.getPrototypeOf(Socket.prototype).emitReserved;
Socket.prototype.emitReserved = function (event, ...args) {
  const result = emitReserved.call(this, event, ...args);
  // Refused at the handshake, or closed by the server: socket.io-client stops there.
  const givenUp = (event === 'connect_error' || (event === 'disconnect' && args[0] === 'io server disconnect')) && !this.active;
  if (givenUp && !this.chaosClosedByClient) {
    if (event === 'connect_error') note({ event: 'refused', message: args[0]?.message });
    setTimeout(() => {
      if (!this.connected && !this.active && !this.chaosClosedByClient) this.connect();
    }, 1000).unref();
  }
  return result;
};
