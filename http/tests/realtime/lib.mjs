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

/** A REST call: `{status, body}`; never throws on an HTTP error status. */
export async function api(method, path, { token, body } = {}) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${BASE}/api/v1${path}`, {
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

/**
 * A socket that keeps every event it receives. `expect` finds the first
 * event of a name that matches and was not taken yet, waiting for it if it
 * has not come.
 */
export class Client {
  constructor(name, options) {
    this.name = name;
    this.received = [];
    this.waiters = [];
    this.connects = 0;
    this.socket = io(BASE, {
      transports: ['websocket'],
      reconnectionDelay: 200,
      reconnectionDelayMax: 1000,
      ...options,
    });
    this.socket.on('connect', () => {
      this.connects += 1;
      this.#arrive('$connect', { id: this.socket.id });
    });
    this.socket.on('connect_error', (error) => this.#arrive('$connect_error', { message: error.message }));
    this.socket.on('disconnect', (reason) => this.#arrive('$disconnect', { reason }));
    this.socket.onAny((event, payload) => this.#arrive(event, payload));
  }

  static withToken(name, token) {
    return new Client(name, { auth: { token } });
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
