// Starting a `wayfare serve --demo` for the browser tests: on a free port
// with a fresh data directory, serving the built app from ui/dist. The global
// setup starts the run's two; a file may start its own (dispatch-busy-city).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const UI_DIR = resolve(import.meta.dirname, '../..');
export const REPO_DIR = resolve(UI_DIR, '..');

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** WAYFARE_BIN when given (the Makefile sets it), else `cargo build` here. */
export function serverBinary() {
  const given = process.env.WAYFARE_BIN;
  if (given && existsSync(resolve(REPO_DIR, given))) return resolve(REPO_DIR, given);
  if (given) console.warn(`WAYFARE_BIN=${given} does not exist; building the server`);
  const target = process.env.CARGO_TARGET_DIR ?? join(REPO_DIR, 'target');
  execFileSync('cargo', ['build', '-p', 'wayfare-http', '--bin', 'wayfare'], { cwd: REPO_DIR, stdio: 'inherit' });
  return join(target, 'debug', 'wayfare');
}

async function waitForHealth(url: string, child: ChildProcess, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wayfare exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/api/v1/settings`);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`wayfare did not answer at ${url}`);
}

/** One `wayfare serve --demo` on a free port with a fresh data directory. */
export async function startServer(binary: string, extraEnv: Record<string, string> = {}) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'wayfare-e2e-'));
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(binary, ['serve', '--demo', '--data-dir', dataDir, '--listen', `127.0.0.1:${port}`], {
    cwd: REPO_DIR,
    env: {
      ...process.env,
      WAYFARE_UI_DIR: join(UI_DIR, 'dist'),
      RUST_LOG: process.env.RUST_LOG ?? 'warn',
      // Every person of every file signs in from 127.0.0.1, the admin many
      // times within the 10-minute window: the sign-in limits are for the
      // internet, not for one machine running the whole suite.
      WAYFARE_AUTH__CODES_PER_CONTACT: '200',
      WAYFARE_AUTH__CODES_PER_CLIENT: '2000',
      // The browser tests play the demo people themselves: no living demo
      // and no history, unless a test asks for them (living-demo.e2e.ts).
      WAYFARE_DEMO_SEED__LIVING: 'false',
      WAYFARE_DEMO_SEED__HISTORY_DAYS: '0',
      ...extraEnv,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitForHealth(url, child);
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => {
      if (child.exitCode !== null) resolve(null);
      else child.once('exit', resolve);
    });
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { url, stop };
}

