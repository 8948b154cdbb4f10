import type { CordonPlugin } from '@cordon/plugin-api';
import { hermesDialect } from './dialect/entry.js';

/** The `cordon:register` oclif hook of @cordon/hermes: returns the plugin descriptor, taps nothing itself. */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'hermes',
    apply(api) {
      api.dialects.register(hermesDialect);
    },
  };
}
