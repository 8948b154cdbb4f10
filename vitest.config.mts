import { defineConfig } from 'vitest/config';

// One root config: unit tests of every workspace plus the end-to-end suites.
// `forks` because better-sqlite3 and child processes misbehave in worker threads.
export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'plugins/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    disableConsoleIntercept: true,
    reporters: ['default'],
  },
});
