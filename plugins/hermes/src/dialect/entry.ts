import type { DialectEntry } from '@cordon/plugin-api';

/** Hermes' snake_case hook events (the Hermes hooks docs). */
const HERMES_EVENTS = new Set(['pre_tool_call', 'post_tool_call', 'pre_llm_call', 'post_llm_call', 'on_session_start', 'on_session_end', 'on_session_finalize', 'on_session_reset', 'subagent_start', 'subagent_stop', 'pre_verify']);

/** Confidence that a payload is Hermes': its snake_case events, or the `extra` + `profile` pair only it sends. */
export function sniffHermes(p: Readonly<Record<string, unknown>>): number {
  const event = typeof p.hook_event_name === 'string' ? p.hook_event_name : '';
  if (HERMES_EVENTS.has(event)) return 1;
  return 'extra' in p && 'profile' in p ? 0.9 : 0;
}

/** The Hermes dialect registration: cheap to register, implementation loaded on use. */
export const hermesDialect: DialectEntry = {
  name: 'hermes',
  sniff: sniffHermes,
  load: async () => (await import('./index.js')).dialect,
  loadInstaller: async () => (await import('./install.js')).installer,
};
