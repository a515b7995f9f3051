// Helpers for the realtime scenarios: REST calls, sign-in through the dev
// outbox, and a Socket.IO client (the official socket.io-client) that records
// every event so a scenario can wait for the one it expects.

import assert from 'node:assert/strict';
import { io } from 'socket.io-client';

export const BASE = process.env.WAYFARE_URL;
if (!BASE) {
  throw new Error('WAYFARE_URL is not set (the Rust test sets it to the server it started)');
}

const DEFAULT_TIMEOUT_MS = 10_000;

export function log(...parts) {
  console.log('[realtime]', ...parts);
}

/**
 * A REST call: `{status, body}`; never throws on an HTTP error status. It
 * goes to `base`, the server of WAYFARE_URL unless another node is named.
 */
export async function api(method, path, { token, body, base = BASE } = {}) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}/api/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed };
}

/** Like `api`, but the status must be `expected`. */
export async function must(expected, method, path, options) {
  const answer = await api(method, path, options);
  assert.equal(answer.status, expected, `${method} ${path}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Signs in with a one-time code read from the dev outbox: `{token, user}`. */
export async function signIn(contact) {
  await must(200, 'POST', '/auth/otp/request', { body: { contact } });
  const outbox = await must(200, 'GET', `/dev/outbox?to=${encodeURIComponent(contact)}`);
  const code = outbox.messages[0].code;
  return must(200, 'POST', '/auth/otp/verify', { body: { contact, code } });
}

/** Failed attempts to reach its node before a socket moves to the next one. */
const FAIL_OVER_AFTER = 2;

/**
 * A socket that keeps every event it receives. `expect` finds the first
 * event of a name that matches and was not taken yet, waiting for it if it
 * has not come.
 *
 * `urls` are the nodes it may use, its own first (by default only the
 * server of WAYFARE_URL). With several, a socket that failed
 * FAIL_OVER_AFTER times in a row to (re)connect, or a second after it
 * was turned away for good, is closed and replaced by a socket to the next
 * node with the same options: handlers added with `on` move with it, what was received stays,
 * and `connects` counts connections on every node.
 */
export class Client {
  #current = 0; // the index in `urls` of the node the socket is on

  constructor(name, options, urls = [BASE]) {
    this.name = name;
    this.received = [];
    this.waiters = [];
    this.connects = 0;
    this.failovers = 0;
    this.closed = false;
    this.urls = urls;
    this.handlers = [];
    this.options = {
      transports: ['websocket'],
      reconnectionDelay: 200,
      reconnectionDelayMax: 1000,
      // A socket of its own to each node, never a cached manager another closed.
      ...(urls.length > 1 && { forceNew: true }),
      ...options,
    };
    this.#open(0);
  }

  static withToken(name, token, urls) {
    return new Client(name, { auth: { token } }, urls);
  }

  /** Connects to `urls[index]`. */
  #open(index) {
    this.#current = index;
    this.url = this.urls[index];
    const socket = io(this.url, { ...this.options });
    this.socket = socket;
    let failures = 0;
    socket.on('connect', () => {
      failures = 0;
      this.connects += 1;
      this.#arrive('$connect', { id: socket.id });
    });
    socket.on('connect_error', (error) => {
      this.#arrive('$connect_error', { message: error.message });
      failures += 1;
      if (failures >= FAIL_OVER_AFTER) {
        this.#failOver();
      } else if (!socket.active) {
        // Refused at the handshake: socket.io-client gives up; try the next node, not at once.
        setTimeout(() => this.socket === socket && this.#failOver(), 1000).unref();
      }
    });
    socket.on('disconnect', (reason) => {
      this.#arrive('$disconnect', { reason });
      // The server closed it: socket.io-client does not reconnect by itself.
      if (reason === 'io server disconnect') this.#failOver();
    });
    socket.onAny((event, payload) => this.#arrive(event, payload));
    for (const [event, handler] of this.handlers) socket.on(event, handler);
  }

  /** With several nodes, moves to the next one; with one, socket.io-client's own reconnection is all. */
  #failOver() {
    if (this.urls.length < 2 || this.closed) return;
    const old = this.socket;
    old.removeAllListeners();
    old.offAny();
    old.close();
    const next = (this.#current + 1) % this.urls.length;
    this.failovers += 1;
    this.#arrive('$failover', { from: this.url, to: this.urls[next] });
    this.#open(next);
  }

  /** Listens for `event` on this socket and on any that replaces it. */
  on(event, handler) {
    this.handlers.push([event, handler]);
    this.socket.on(event, handler);
  }

  #arrive(event, payload) {
    const entry = { event, payload, taken: false };
    this.received.push(entry);
    for (const waiter of this.waiters) {
      if (!waiter.done && waiter.event === event && waiter.matches(payload)) {
        waiter.done = true;
        entry.taken = true;
        waiter.resolve(payload);
        break;
      }
    }
    this.waiters = this.waiters.filter((waiter) => !waiter.done);
  }

  /** The next untaken `event` whose payload satisfies `matches`. */
  expect(event, matches = () => true, timeoutMs = DEFAULT_TIMEOUT_MS) {
    const found = this.received.find((entry) => !entry.taken && entry.event === event && matches(entry.payload));
    if (found) {
      found.taken = true;
      return Promise.resolve(found.payload);
    }
    return new Promise((resolve, reject) => {
      const waiter = { event, matches, done: false, resolve };
      this.waiters.push(waiter);
      setTimeout(() => {
        if (waiter.done) return;
        waiter.done = true;
        const seen = this.received.map((entry) => `${entry.event}${summary(entry.payload)}`).join('\n  ');
        reject(new Error(`${this.name}: no '${event}' matching ${matches} within ${timeoutMs} ms; received:\n  ${seen}`));
      }, timeoutMs);
    });
  }

  /** Every event of a name received so far, taken or not. */
  all(event) {
    return this.received.filter((entry) => entry.event === event).map((entry) => entry.payload);
  }

  /** Marks everything received so far as taken (before a restart). */
  forget() {
    for (const entry of this.received) entry.taken = true;
  }

  connected() {
    return this.expect('$connect');
  }

  location(point) {
    return this.socket.timeout(DEFAULT_TIMEOUT_MS).emitWithAck('location', point);
  }

  close() {
    this.closed = true;
    this.socket.close();
  }
}

function summary(payload) {
  if (payload && typeof payload === 'object') {
    const { id, status, booking, kind, key } = payload;
    const parts = Object.entries({ id, status, booking: typeof booking === 'object' ? booking?.id : booking, kind, key })
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => `${name}=${value}`);
    return ` {${parts.join(', ')}}`;
  }
  return '';
}

/** Fails the whole script if it has not finished in time. */
export function watchdog(ms) {
  const timer = setTimeout(() => {
    console.error(`[realtime] the scenario did not finish within ${ms} ms`);
    process.exit(3);
  }, ms);
  timer.unref();
}

/** Runs a scenario: exit code 0 when it passes, 1 with the error when not. */
export async function run(name, scenario) {
  try {
    await scenario();
    log(`${name}: passed`);
    process.exit(0);
  } catch (error) {
    console.error(`[realtime] ${name}: FAILED`);
    console.error(error);
    process.exit(1);
  }
}
