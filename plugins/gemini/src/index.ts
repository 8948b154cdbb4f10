import type { CordonPlugin } from '@cordon/plugin-api';
import { geminiDialect } from './dialect/entry.js';
import { geminiRunner } from './runner/entry.js';

/** The `cordon:register` oclif hook of @cordon/gemini: returns the plugin descriptor, taps nothing itself. */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'gemini',
    apply(api) {
      api.dialects.register(geminiDialect);
      api.runners.register(geminiRunner);
    },
  };
}
