import { join } from 'node:path';
import type { ToolCall, ToolDecision } from '@cordon/plugin-api';
import { readText } from './cgroup/files.js';

/** The settings file `cordon control guard --write` writes: `<configDir>/control.json`, `{"guard": {"<agent>": true}}`. */
export const GUARD_FILE = 'control.json';

/** Agents whose shell tool calls are guarded, from `<configDir>/control.json`; none when absent or unreadable. */
export function guardedAgents(configDir: string): Set<string> {
  try {
    const parsed = JSON.parse(readText(join(configDir, GUARD_FILE)) ?? '{}') as { guard?: Record<string, unknown> };
    return new Set(Object.entries(parsed.guard ?? {}).filter(([, on]) => on === true).map(([agent]) => agent));
  } catch {
    return new Set();
  }
}

/** Quotes one word for a POSIX shell (single quotes; a `'` becomes `'\''`). */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The hint an agent put in a shell command: a leading `AGENT_RESOURCE_HINT=…` assignment (bare,
 * single- or double-quoted), e.g. `AGENT_RESOURCE_HINT=memory:high npm test`; else `undefined`
 * (cordon then reads the variable from the agent's environment).
 */
export function hintInCommand(command: string): string | undefined {
  const m = /^\s*(?:export\s+)?AGENT_RESOURCE_HINT=(?:'([^']*)'|"([^"]*)"|([^\s;&|]+))/.exec(command);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}

/** What {@link guardDecision} needs to build the rewritten command. */
export interface GuardContext {
  /** The cordon command as argv (node and bin/run.cjs of this installation). */
  readonly cordon: readonly string[];
  /** Agents whose calls are guarded. */
  readonly agents: ReadonlySet<string>;
}

/**
 * The `beforeToolCall` answer that makes a shell tool call run under `cordon control run`
 * (issue 14): for an agent `cordon control guard --write` switched on, a `shell` call whose input
 * holds a string `command` gets that field rewritten to
 * `[AGENT_RESOURCE_HINT=H] <cordon> control run [--session S] -- bash -c '<original>'` (the hint, when the
 * command sets one, through the environment, whose grammar is forgiving), every other input field kept; the
 * dialect writes it back in the agent's own rewrite field (Claude Code and Codex `updatedInput`,
 * Gemini `tool_input`, Cursor `updated_input`). A command that already runs under `control run`
 * is left alone. `undefined` means no opinion.
 */
export function guardDecision(call: ToolCall, context: GuardContext): ToolDecision | undefined {
  if (call.canonicalTool !== 'shell' || !context.agents.has(call.agent)) return undefined;
  const command = call.toolInput.command;
  if (typeof command !== 'string' || command.trim() === '') return undefined;
  const prefix = context.cordon.map(shellQuote).join(' ');
  if (command.includes(`${prefix} control run `)) return undefined;
  const hint = hintInCommand(command);
  // The session lets `cordon reduce` join the run's record (tier, limit, peak, stall) to this call.
  const session = call.sessionId !== '' ? ` --session ${shellQuote(call.sessionId)}` : '';
  const rewritten = `${hint ? `AGENT_RESOURCE_HINT=${shellQuote(hint)} ` : ''}${prefix} control run${session} -- bash -c ${shellQuote(command)}`;
  return { kind: 'rewrite', toolInput: { ...call.toolInput, command: rewritten }, reason: 'runs under cordon control run', by: 'cgroup-linux' };
}
