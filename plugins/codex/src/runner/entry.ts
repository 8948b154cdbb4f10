import type { RunnerEntry } from '@cordon/plugin-api';

/** The Codex runner registration: cheap to register, implementation loaded by `run`/`resume`. */
export const codexRunner: RunnerEntry = {
  name: 'codex',
  load: async () => (await import('./index.js')).runner,
};
