import type { RunnerEntry } from '@cordon/plugin-api';

/** The Gemini CLI runner registration: cheap to register, implementation loaded by `run`/`resume`. */
export const geminiRunner: RunnerEntry = {
  name: 'gemini',
  load: async () => (await import('./index.js')).runner,
};
