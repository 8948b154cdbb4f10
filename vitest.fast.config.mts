import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.mts';

// `npm run test:fast`: the unit and in-process tests, for development. Left out: everything that
// drives real agents, a registry, a VM, Wine or a browser, the few suites that kill or spawn
// processes by the hundred, a PostgreSQL server, and the suites that start the built `cordon` CLI dozens of times
// (each start is a whole Node and oclif start-up). `npm test` runs them all.
/** Suites that start the built `cordon` CLI dozens of times (each start is a whole Node and oclif start-up). */
export const CLI_SUITES = [
  'plugins/codex/test/pcodx/cli.test.ts',
  'plugins/codex/test/pcodx/bin.test.ts',
  'plugins/codex/test/pcodx/json.test.ts',
  'plugins/codex/test/pcodx/fast-route.test.ts',
  'plugins/aider/test/wrap.test.ts',
  'packages/host/test/envelope/cli.test.ts',
  'packages/host/test/envelope/reliability/hostile-files.test.ts',
  'packages/host/test/envelope/reliability/status-in-progress.test.ts',
  'packages/host/test/envelope/reliability/save-error.test.ts',
  'packages/host/test/envelope/reliability/closed-pipe.test.ts',
  'packages/host/test/install-hooks/install-hooks.test.ts',
  'packages/host/test/install-hooks/faults.test.ts',
  'packages/host/test/plugins/install-link.test.ts',
  'packages/host/test/envelope/fast-check.test.ts',
  'packages/host/test/envelope/fast-status.test.ts',
  'packages/host/test/envelope/formats.test.ts',
  'packages/host/test/telemetry/analyze/cli.test.ts',
  'packages/host/test/envelope/messages.test.ts',
  'packages/host/test/install-hooks/created-dirs.test.ts',
  'packages/host/test/cli/surface.test.ts',
  'packages/host/test/cli/progress.test.ts',
  'packages/host/test/cli/completion.test.ts',
  // tmux, which only `npm test` installs.
  'plugins/codex/test/pcodx/interactive.test.ts',
  // doctor asks the real codex (from .cache/agents, which test:fast does not prepare).
  'packages/host/test/doctor/doctor.test.ts',
  'packages/host/test/schemas/schemas.test.ts',
  // cordon top on real sessions (stand-in agents running the hook, detached samplers), and in tmux.
  'packages/host/test/top/reader.test.ts',
  'packages/host/test/top/cli.test.ts',
  'packages/host/test/top/live.test.ts',
];

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        ...configDefaults.exclude,
        'test/**',
        'plugins/codex/test/pcodx/serve/e2e-*.test.ts',
        'plugins/sampler-windows/test/wine.test.ts',
        'packages/host/test/install-hooks/wine-cmd.test.ts',
        'plugins/charts/test/html.test.ts',
        'packages/host/test/envelope/reliability/kill-every-step.test.ts',
        'packages/host/test/envelope/scale.test.ts',
        'packages/host/test/telemetry/markers-concurrency.test.ts',
        'packages/host/test/telemetry/reduce/concurrent-open.test.ts',
        ...CLI_SUITES,
        // A real PostgreSQL cluster started by initdb + pg_ctl.
        'packages/host/test/telemetry/reduce/postgres.test.ts',
      ],
    },
  }),
);
