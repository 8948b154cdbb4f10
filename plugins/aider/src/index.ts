import type { CordonPlugin } from '@cordon/plugin-api';
import { createAiderDialectEntry } from './dialect/entry.js';

/**
 * The `cordon:register` oclif hook of @cordon/aider: returns the plugin descriptor, taps nothing
 * itself. The plugin holds `cordon wrap` (an oclif command) and the `aider` dialect that turns
 * the wrap shell shim's reports into tool markers.
 */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'aider',
    apply(api) {
      // Optional: a host older than the service has none.
      api.dialects.register(createAiderDialectEntry(api.services.redact?.command));
    },
  };
}
