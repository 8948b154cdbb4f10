import type { DialectEntry, RedactService } from '@cordon/plugin-api';

/**
 * Registration of the `aider` dialect; the implementation loads only inside `cordon hook --agent
 * aider`. `redact` is the host's `api.services.redact.command`, which the dialect applies to the
 * deny reason the shim prints (absent on a host older than the service: the reason as it is).
 */
export function createAiderDialectEntry(redact?: RedactService['command']): DialectEntry {
  return {
    name: 'aider',
    sniff: (payload) => (payload.hook_event_name === 'shell_start' || payload.hook_event_name === 'shell_end' ? 1 : 0),
    load: async () => (await import('./dialect.js')).createAiderDialect(redact),
  };
}

/** The entry without a redaction (what a host without `api.services.redact` gets). */
export const aiderDialectEntry: DialectEntry = createAiderDialectEntry();
