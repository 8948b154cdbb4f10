import type { DialectEntry } from '@cordon/plugin-api';

/** Event names only Claude Code sends (the Claude Code hooks reference; Codex shares the common ones). */
const CLAUDE_ONLY = new Set(['PostToolUseFailure', 'PostToolBatch', 'StopFailure', 'Notification', 'PreCompact', 'PostCompact', 'SubagentStop', 'PermissionDenied']);

/**
 * Confidence that a payload is Claude Code's: its env (`CLAUDECODE=1`, `CLAUDE_PID`) or fields
 * only it sends (`prompt_id`, `effort`, a `.claude/projects/` transcript) against Codex's
 * look-alike payloads (`turn_id`, `model`, `rollout-*.jsonl`).
 */
export function sniffClaude(p: Readonly<Record<string, unknown>>, env: Readonly<Record<string, string | undefined>>): number {
  const event = typeof p.hook_event_name === 'string' ? p.hook_event_name : '';
  // Payload evidence first: the env is inherited, so an agent started from a Claude Code shell has CLAUDECODE=1 too.
  if (CLAUDE_ONLY.has(event)) return 0.95;
  if (typeof p.transcript_path === 'string' && p.transcript_path.includes('/.claude/projects/')) return 0.95;
  if ('prompt_id' in p || 'effort' in p) return 0.9;
  if (!/^(Pre|Post)ToolUse$|^Session(Start|End)$|^UserPromptSubmit$|^Stop$/.test(event) || 'turn_id' in p || 'model' in p) return 0;
  return env.CLAUDECODE === '1' || env.CLAUDE_PID ? 0.6 : 0.3;
}

/** The Claude Code dialect registration: cheap to register, implementation loaded on use. */
export const claudeCodeDialect: DialectEntry = {
  name: 'claude-code',
  sniff: sniffClaude,
  load: async () => (await import('./index.js')).dialect,
  loadInstaller: async () => (await import('./install.js')).installer,
};
