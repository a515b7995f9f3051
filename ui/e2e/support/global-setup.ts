// Starts the `wayfare serve --demo` servers of the run (one plain, one whose
// platform is in demo mode), each on a free port with a fresh data directory,
// serving the built app from ui/dist.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { REPO_DIR, serverBinary, startServer, UI_DIR } from './server';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    /** A second demo server whose settings start in demo mode (spec §6). */
    demoModeUrl: string;
    chromiumPath: string;
  }
}

function chromium() {
  return execFileSync(join(REPO_DIR, 'scripts', 'ensure-chromium.sh'), { encoding: 'utf8' }).trim();
}

export default async function setup(project: TestProject) {
  if (!existsSync(join(UI_DIR, 'dist', 'index.html'))) {
    execFileSync('npm', ['run', 'build'], { cwd: UI_DIR, stdio: 'inherit' });
  }
  const chromiumPath = chromium();
  const binary = serverBinary();
  const [main, demoMode] = await Promise.all([
    startServer(binary),
    startServer(binary, { WAYFARE_DEMO_SEED__DEMO_MODE: 'true', WAYFARE_DEMO_SEED__DRIVERS: '5' }),
  ]);
  project.provide('baseUrl', main.url);
  project.provide('demoModeUrl', demoMode.url);
  project.provide('chromiumPath', chromiumPath);
  return async () => {
    await Promise.all([main.stop(), demoMode.stop()]);
  };
}
