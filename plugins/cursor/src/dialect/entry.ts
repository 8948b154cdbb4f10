import type { DialectEntry } from '@cordon/plugin-api';

/** Cursor's camelCase hook events (the Cursor hooks docs). */
export const CURSOR_EVENTS = new Set([
  'sessionStart',
  'sessionEnd',
  'preToolUse',
  'postToolUse',
  'postToolUseFailure',
  'subagentStart',
  'subagentStop',
  'beforeShellExecution',
  'afterShellExecution',
  'beforeMCPExecution',
  'afterMCPExecution',
  'beforeReadFile',
  'afterFileEdit',
  'beforeSubmitPrompt',
  'preCompact',
  'stop',
  'afterAgentResponse',
  'afterAgentThought',
  'beforeTabFileRead',
  'afterTabFileEdit',
]);

/** Confidence that a payload is Cursor's: its camelCase event names, `conversation_id`, `cursor_version`. */
export function sniffCursor(p: Readonly<Record<string, unknown>>): number {
  const event = typeof p.hook_event_name === 'string' ? p.hook_event_name : '';
  if (CURSOR_EVENTS.has(event)) return 1;
  return 'cursor_version' in p || 'conversation_id' in p ? 0.9 : 0;
}

/** The Cursor dialect registration: cheap to register, implementation loaded on use. */
export const cursorDialect: DialectEntry = {
  name: 'cursor',
  sniff: sniffCursor,
  load: async () => (await import('./index.js')).dialect,
  loadInstaller: async () => (await import('./install.js')).installer,
};
