import { defineConfig } from 'vitest/config';

// One root config: unit tests of every workspace plus the end-to-end suites.
// `forks` because better-sqlite3 and child processes misbehave in worker threads.
export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'plugins/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    // Points every cordon and XDG directory of the run at a temp dir and fails the run if the
    // user's own ~/.local/share/cordon, ~/.config/cordon or ~/.cache/cordon changed.
    globalSetup: ['test/support/global-setup.ts'],
    // Most suites wait on processes they drive (real agents, qemu, Wine, git, a registry), not on
    // the CPU: two files at a time on two cores (Vitest's default here would be one). A test that
    // starts the CLI a dozen times gets 120 s, as two files share the machine.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    disableConsoleIntercept: true,
    reporters: ['default'],
  },
});
