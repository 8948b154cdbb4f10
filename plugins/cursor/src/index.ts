import type { CordonPlugin } from '@cordon/plugin-api';
import { cursorDialect } from './dialect/entry.js';

/** The `cordon:register` oclif hook of @cordon/cursor: returns the plugin descriptor, taps nothing itself. */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'cursor',
    apply(api) {
      api.dialects.register(cursorDialect);
    },
  };
}
