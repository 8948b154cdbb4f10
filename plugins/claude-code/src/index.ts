import type { CordonPlugin } from '@cordon/plugin-api';
import { claudeCodeDialect } from './dialect/entry.js';
import { claudeCodeRunner } from './runner/entry.js';

/** The `cordon:register` oclif hook of @cordon/claude-code: returns the plugin descriptor, taps nothing itself. */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'claude-code',
    apply(api) {
      api.dialects.register(claudeCodeDialect);
      api.runners.register(claudeCodeRunner);
    },
  };
}
