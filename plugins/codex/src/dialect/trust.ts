import { createHash } from 'node:crypto';

/** Codex's event labels, used in trust keys and hashes (the Codex hooks docs). */
export const EVENT_LABELS: Readonly<Record<string, string>> = {
  PreToolUse: 'pre_tool_use',
  PermissionRequest: 'permission_request',
  PostToolUse: 'post_tool_use',
  PreCompact: 'pre_compact',
  PostCompact: 'post_compact',
  SessionStart: 'session_start',
  SessionEnd: 'session_end',
  UserPromptSubmit: 'user_prompt_submit',
  SubagentStart: 'subagent_start',
  SubagentStop: 'subagent_stop',
  Stop: 'stop',
};

/** Default handler timeout, seconds; SessionEnd handlers are clamped to 3 s (the Codex hooks docs, live). */
const DEFAULT_TIMEOUT_S = 600;
const SESSION_END_MAX_S = 3;

/** A hooks.json handler as far as the trust hash covers it. */
export interface HandlerIdentity {
  readonly event: string;
  readonly matcher?: unknown;
  readonly command: string;
  readonly timeout?: unknown;
  readonly async?: unknown;
  readonly statusMessage?: unknown;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]));
  return value;
}

/**
 * The trust key of a handler: `<absolute config path>:<event label>:<group index>:<handler index>`.
 * Returns `undefined` for an event Codex does not know.
 */
export function trustKey(configPath: string, event: string, group: number, handler: number): string | undefined {
  const label = EVENT_LABELS[event];
  return label === undefined ? undefined : `${configPath}:${label}:${group}:${handler}`;
}

/**
 * The `trusted_hash` Codex expects for a handler (the Codex hooks docs; matched `hooks/list`'s
 * `currentHash` of codex-cli 0.171.0): `sha256:` + SHA-256 of the sorted-key, compact JSON of
 * `{event_name, matcher?, hooks: [{type, command, timeout, async, statusMessage?}]}`, where
 * timeout is the effective seconds (default 600, at least 1, SessionEnd at most 3).
 */
export function trustHash(h: HandlerIdentity): string | undefined {
  const label = EVENT_LABELS[h.event];
  if (label === undefined) return undefined;
  let timeout = typeof h.timeout === 'number' && Number.isFinite(h.timeout) ? Math.max(1, Math.floor(h.timeout)) : DEFAULT_TIMEOUT_S;
  if (h.event === 'SessionEnd') timeout = Math.min(timeout, SESSION_END_MAX_S);
  const handler: Record<string, unknown> = { type: 'command', command: h.command, timeout, async: h.async === true };
  if (typeof h.statusMessage === 'string') handler.statusMessage = h.statusMessage;
  const identity: Record<string, unknown> = { event_name: label, hooks: [handler] };
  if (h.matcher !== undefined && h.matcher !== null) identity.matcher = h.matcher;
  return `sha256:${createHash('sha256').update(JSON.stringify(sorted(identity))).digest('hex')}`;
}
