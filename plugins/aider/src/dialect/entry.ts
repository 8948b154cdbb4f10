import type { DialectEntry } from '@cordon/plugin-api';

/** Registration of the `aider` dialect; the implementation loads only inside `cordon hook --agent aider`. */
export const aiderDialectEntry: DialectEntry = {
  name: 'aider',
  sniff: (payload) => (payload.hook_event_name === 'shell_start' || payload.hook_event_name === 'shell_end' ? 1 : 0),
  load: async () => (await import('./dialect.js')).aiderDialect,
};
