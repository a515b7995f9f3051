import { defineConfig } from 'vitest/config';

// Browser tests: Debian's chromium driven by playwright-core against a real
// `wayfare serve --demo` that the global setup starts (e2e/support).
// `npm run e2e` runs e2e/*.e2e.ts; `npm run e2e:pending` runs the steps that
// wait for the server's Socket.IO events (e2e/pending), not yet in `make test`.
export default defineConfig({
  test: {
    include: process.env.E2E_PENDING ? ['e2e/pending/*.e2e.ts'] : ['e2e/*.e2e.ts'],
    environment: 'node',
    globalSetup: ['./e2e/support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 600_000,
    reporters: ['verbose'],
  },
});
