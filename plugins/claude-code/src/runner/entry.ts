import type { RunnerEntry } from '@cordon/plugin-api';

/** The Claude Code runner registration: cheap to register, implementation loaded by `run`/`resume`. */
export const claudeCodeRunner: RunnerEntry = {
  name: 'claude-code',
  load: async () => (await import('./index.js')).runner,
};
