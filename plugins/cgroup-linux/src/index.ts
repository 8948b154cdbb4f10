import type { CordonPlugin } from '@cordon/plugin-api';

/** The `cordon:register` oclif hook of @cordon/cgroup-linux: returns the plugin descriptor, taps nothing itself. */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'cgroup-linux',
    apply() {
      // Registers nothing yet: see README.md for what this plugin will hold.
    },
  };
}
