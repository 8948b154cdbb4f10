import type { CordonPlugin } from '@cordon/plugin-api';

/** The `cordon:register` oclif hook of @cordon/claude-code: returns the plugin descriptor, taps nothing itself. */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'claude-code',
    apply() {
      // Registers nothing yet: see README.md for what this plugin will hold.
    },
  };
}
