import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.mts';

// `npm run test:fast`: the unit and in-process tests, for development. Left out: everything that
// drives real agents, a registry, a VM, Wine or a browser, and the few suites that kill or
// spawn processes by the hundred. `npm test` runs them all.
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
        'packages/host/test/telemetry/analyze/html.test.ts',
        'packages/host/test/envelope/reliability/kill-every-step.test.ts',
        'packages/host/test/envelope/scale.test.ts',
        'packages/host/test/telemetry/markers-concurrency.test.ts',
        'packages/host/test/telemetry/reduce/concurrent-open.test.ts',
      ],
    },
  }),
);
