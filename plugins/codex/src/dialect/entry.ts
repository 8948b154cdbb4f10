import type { DialectEntry } from '@cordon/plugin-api';

/**
 * Confidence that a payload is Codex's: fields only it sends (`turn_id`, `model` beside
 * PascalCase events, a `sessions/…/rollout-*.jsonl` transcript, the Codex hooks docs)
 * before the inherited environment (`CODEX_HOME`, `CODEX_MANAGED_BY_NPM`).
 */
export function sniffCodex(p: Readonly<Record<string, unknown>>, env: Readonly<Record<string, string | undefined>>): number {
  const event = typeof p.hook_event_name === 'string' ? p.hook_event_name : '';
  if (!/^(Pre|Post)ToolUse$|^Session(Start|End)$|^UserPromptSubmit$|^Stop$|^PermissionRequest$|^(Pre|Post)Compact$|^Subagent(Start|Stop)$/.test(event)) return 0;
  if (typeof p.transcript_path === 'string' && /\/sessions\/.*rollout-[^/]*\.jsonl$/.test(p.transcript_path)) return 0.95;
  if ('turn_id' in p || 'model' in p) return 0.9;
  return env.CODEX_HOME || env.CODEX_MANAGED_BY_NPM ? 0.6 : 0;
}

/** The Codex dialect registration: cheap to register, implementation loaded on use. */
export const codexDialect: DialectEntry = {
  name: 'codex',
  sniff: sniffCodex,
  load: async () => (await import('./index.js')).dialect,
  loadInstaller: async () => (await import('./install.js')).installer,
};
