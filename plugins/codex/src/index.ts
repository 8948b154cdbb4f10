import type { CordonPlugin } from '@cordon/plugin-api';
import { codexDialect } from './dialect/entry.js';
import { codexRunner } from './runner/entry.js';

/** The `cordon:register` oclif hook of @cordon/codex: returns the plugin descriptor, taps nothing itself. */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'codex',
    apply(api) {
      api.dialects.register(codexDialect);
      api.runners.register(codexRunner);
    },
  };
}
