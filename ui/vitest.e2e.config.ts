import { defineConfig } from 'vitest/config';

// Browser tests: Debian's chromium driven by playwright-core against a real
// `wayfare serve --demo` that the global setup starts (e2e/support).
// `npm run e2e` runs e2e/*.e2e.ts, one file after the other on one server.
export default defineConfig({
  test: {
    include: ['e2e/*.e2e.ts'],
    environment: 'node',
    globalSetup: ['./e2e/support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 600_000,
    reporters: ['verbose'],
  },
});
