import { readdirSync } from 'node:fs';
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.mts';
import fast, { CLI_SUITES } from './vitest.fast.config.mts';

// `npm run test:node22` / `test:node24` (scripts/test-node.sh): the suites run again under each
// Node version users run, besides the machine's own Node that `npm test` uses: everything
// `test:fast` runs, the suites that start the built CLI dozens of times, and the real agents'
// hook suite. Left out, as in test:fast: the VM, Wine, the registry, the browser and PostgreSQL.
const AGAIN = new Set([
  // The CLI started dozens of times per suite.
  ...CLI_SUITES,
  // The real Claude Code, Codex and Gemini CLI (from .cache/agents) against fake model servers.
  'test/e2e/hooks/real-agents.test.ts',
  // The quickstart's demo.
  'test/e2e/quickstart/demo.test.ts',
]);

const fastExcludes = (fast.test?.exclude ?? []).filter((pattern) => !AGAIN.has(pattern));
// test:fast leaves out all of test/**; here only the files not named above.
const e2eLeftOut = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .map((file) => `test/${file.split('\\').join('/')}`)
  .filter((file) => file.endsWith('.test.ts') && !AGAIN.has(file));

export default mergeConfig(
  { ...base, test: { ...base.test, exclude: undefined } },
  defineConfig({
    test: {
      exclude: [...configDefaults.exclude, ...fastExcludes.filter((pattern) => pattern !== 'test/**'), ...e2eLeftOut],
    },
  }),
);
