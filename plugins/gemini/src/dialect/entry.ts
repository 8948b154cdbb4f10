import type { DialectEntry } from '@cordon/plugin-api';

/** Event names only Gemini CLI sends (the Gemini CLI hooks reference). */
const GEMINI_ONLY = new Set(['BeforeTool', 'AfterTool', 'BeforeAgent', 'AfterAgent', 'BeforeModel', 'AfterModel', 'BeforeToolSelection', 'PreCompress']);

/**
 * Confidence that a payload is Gemini CLI's: its own event names; for the shared
 * `SessionStart`/`SessionEnd`, the `timestamp` field only Gemini sends, then the inherited env.
 */
export function sniffGemini(p: Readonly<Record<string, unknown>>, env: Readonly<Record<string, string | undefined>>): number {
  const event = typeof p.hook_event_name === 'string' ? p.hook_event_name : '';
  if (GEMINI_ONLY.has(event)) return 1;
  if (event !== 'SessionStart' && event !== 'SessionEnd' && event !== 'Notification') return 0;
  if (typeof p.timestamp === 'string') return 0.95;
  return env.GEMINI_SESSION_ID ? 0.6 : 0;
}

/** The Gemini CLI dialect registration: cheap to register, implementation loaded on use. */
export const geminiDialect: DialectEntry = {
  name: 'gemini',
  sniff: sniffGemini,
  load: async () => (await import('./index.js')).dialect,
  loadInstaller: async () => (await import('./install.js')).installer,
};
