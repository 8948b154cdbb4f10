import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readSettingsText, type ToolCall, type ToolDecision } from '@cordon/plugin-api';
import { shellWords } from './shell-words.js';

/** The settings file `cordon control guard --write` writes: `<configDir>/control.json`, `{"guard": {"<agent>": true}}`. */
export const GUARD_FILE = 'control.json';

/**
 * Agents whose shell tool calls are guarded, from `<configDir>/control.json`; none when absent,
 * unreadable or of another shape. Read on every hook call, so read as the plugin API's
 * `readSettingsText` reads (a FIFO in its place held every hook call until something wrote to it).
 */
export function guardedAgents(configDir: string): Set<string> {
  try {
    const parsed = JSON.parse(readSettingsText(join(configDir, GUARD_FILE)) ?? '{}') as { guard?: Record<string, unknown> };
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
  /**
   * Where each guarded call gets its state directory (`<dataDir>/guard`): made by the hook, so
   * the agent's shell needs no `mktemp` (an agent refuses command substitution: Gemini CLI).
   * Without it, {@link guardDecision} makes no rewrite.
   */
  readonly stateRoot?: string;
}

/**
 * `$0` of the guarded `bash -c` script: names the wrapper in `ps`, and tells `cordon reduce`
 * which word of the run's argv is the tool call's own command
 * (`bash -c <script> cordon-guard <state dir> <command>`).
 */
export const GUARD_ARGV0 = 'cordon-guard';

/**
 * The script the guarded `bash` runs (fixed text: the call's command arrives as `$2`, the state
 * directory as `$1`). It defines the functions and aliases of the agent's shell (`<state>/in`,
 * written by that shell just before), evaluates the command with no positional parameters, as
 * the agent's shell would have, and when it exits writes its working directory to `<state>/cwd`,
 * plus `<state>/exit` when the command ended the shell itself (`exit`, `set -e`) instead of
 * running to its end: the agent's shell then exits too, as it would have unguarded.
 */
export const GUARD_SCRIPT = [
  '__cordon_state=$1 __cordon_command=$2 __cordon_done=',
  'set --',
  'shopt -s expand_aliases 2>/dev/null',
  '. "$__cordon_state/in" 2>/dev/null',
  `trap 'builtin printf "%s\\n" "$PWD" >"$__cordon_state/cwd" 2>/dev/null; [ -n "$__cordon_done" ] || : >"$__cordon_state/exit" 2>/dev/null' EXIT`,
  'eval "$__cordon_command"',
  '__cordon_status=$? __cordon_done=1',
  'exit $__cordon_status',
].join('\n');

/**
 * Shell text run in the agent's own shell before the guarded run: the shell's functions and
 * aliases written into the call's state directory (`declare -f`, `alias -p`: bash and zsh;
 * nothing in a shell without them). No command substitution and no `rm` anywhere around the run:
 * the agents' own command checks refuse them (Gemini CLI blocks `$(…)`, Codex `rm -f`, Claude
 * Code asks before a script that runs `rm`; seen with the real agents in
 * test/e2e/hooks/real-agents.test.ts).
 */
function before(dir: string): string {
  return `{ declare -f; alias -p; } >${shellQuote(`${dir}/in`)} 2>/dev/null; `;
}

/**
 * Shell text run in the agent's own shell after the guarded run: when the command ended its
 * shell (`exit`, `set -e`), the agent's shell exits with its status, as it would have running the
 * command itself; otherwise it enters the directory the command ended in, so a `cd` persists where
 * the agent keeps its shell (Claude Code), and ends with the command's status.
 */
function after(dir: string): string {
  const file = (name: string) => shellQuote(`${dir}/${name}`);
  return `; __cordon_status=$? __cordon_dir=; if [ -e ${file('exit')} ]; then exit $__cordon_status; fi; if IFS= read -r __cordon_dir <${file('cwd')} 2>/dev/null; then cd -- "$__cordon_dir" 2>/dev/null; fi; (exit $__cordon_status)`;
}

/** The rewritten form of `command` (see {@link guardDecision}), with its state in `dir`. */
export function guardedCommand(command: string, context: GuardContext, hint: string | undefined, session: string, dir: string): string {
  const prefix = context.cordon.map(shellQuote).join(' ');
  const sessionFlag = session !== '' ? ` --session ${shellQuote(session)}` : '';
  const hintAssignment = hint ? `AGENT_RESOURCE_HINT=${shellQuote(hint)} ` : '';
  return `${before(dir)}${hintAssignment}${prefix} control run${sessionFlag} -- bash -c ${shellQuote(GUARD_SCRIPT)} ${GUARD_ARGV0} ${shellQuote(dir)} ${shellQuote(command)}${after(dir)}`;
}

/** How long a call's state directory is kept: the agent's shell reads it right after the call. */
const STATE_KEEP_MS = 3_600_000;

/**
 * Makes a fresh state directory for one guarded call under `root` (0700, a random name), and
 * removes the ones older than an hour (the agent's shell reads its own right after the call, and
 * removes nothing itself: see {@link before}). Returns its path.
 */
export function makeStateDir(root: string, now = Date.now()): string {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  try {
    for (const name of readdirSync(root)) {
      const path = join(root, name);
      try {
        if (now - statSync(path).mtimeMs > STATE_KEEP_MS) rmSync(path, { recursive: true, force: true });
      } catch {
        // Gone meanwhile, or another hook's.
      }
    }
  } catch {
    // An unreadable root only keeps old directories.
  }
  return mkdtempSync(join(root, 'call-'));
}

/** Whether `word` names this cordon's entry (its bin script, or an installed `cordon`). */
function isCordonWord(word: string, context: GuardContext): boolean {
  return word === context.cordon[context.cordon.length - 1] || word.slice(word.lastIndexOf('/') + 1) === 'cordon';
}

/**
 * Whether `command` already runs under `cordon control run`, decided by its structure
 * (a command merely containing the text `<cordon> control run ` was left unwrapped):
 * - it is exactly what {@link guardedCommand} makes of the command it carries (parsed out and
 *   wrapped again, text for text), or
 * - it is one simple command ({@link shellWords}: no operator, no command substitution) whose
 *   words, after leading `NAME=value` assignments, are cordon (node and bin, the bin alone, or an
 *   installed `cordon`) followed by `control run`.
 */
export function alreadyGuarded(command: string, context: GuardContext): boolean {
  // The guard's own rewrite: its state directory is the first redirection target.
  const head = /^\{ declare -f; alias -p; \} >('(?:[^']|'\\'')*'|[\w@%+=:,./-]+) 2>\/dev\/null; /.exec(command);
  const target = head ? shellWords(head[1]!).words[0] : undefined;
  if (target !== undefined && target.endsWith('/in')) {
    const dir = target.slice(0, -'/in'.length);
    const [b, a] = [before(dir), after(dir)];
    if (command.startsWith(b) && command.endsWith(a)) {
      const { words } = shellWords(command.slice(b.length, command.length - a.length));
      const inner = words[words.length - 1];
      const hint = /^AGENT_RESOURCE_HINT=(.*)$/s.exec(words[0] ?? '')?.[1];
      const s = words.indexOf('--session');
      const session = s >= 0 && s + 1 < words.length ? words[s + 1]! : '';
      if (inner !== undefined && guardedCommand(inner, context, hint, session, dir) === command) return true;
    }
  }
  const { words, simple } = shellWords(command);
  if (!simple) return false;
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
  if (words[i] === context.cordon[0] && context.cordon.length > 1 && isCordonWord(words[i + 1] ?? '', context)) i += 2;
  else if (isCordonWord(words[i] ?? '', context)) i += 1;
  else return false;
  return words[i] === 'control' && words[i + 1] === 'run';
}

/**
 * The `beforeToolCall` answer that makes a shell tool call run under `cordon control run`:
 * for an agent `cordon control guard --write` switched on, a `shell` call whose input
 * holds a string `command` gets that field rewritten (every other input field kept; the dialect
 * writes it back in the agent's own rewrite field: Claude Code and Codex `updatedInput`, Gemini
 * `tool_input`, Cursor `updated_input`) to {@link guardedCommand}:
 *
 *   `<before> [AGENT_RESOURCE_HINT=H] <cordon> control run [--session S] -- bash -c <script> cordon-guard <state dir> '<original>'<after>`
 *
 * The hint, when the command sets one, goes through the environment. Only the run is under
 * control; the text around it runs in the agent's own shell, so the call means what it meant
 * unguarded: the command sees the functions and aliases of the agent's shell (Claude
 * Code's shell snapshot, a login shell's profile), and the directory it ends in becomes the
 * shell's, which persists where the agent keeps its shell between calls (Claude Code: "the
 * working directory persists across commands"; exported variables do not, guarded or not).
 * A command that already runs under `control run` ({@link alreadyGuarded}) is left alone.
 * `undefined` means no opinion.
 */
export function guardDecision(call: ToolCall, context: GuardContext): ToolDecision | undefined {
  if (call.canonicalTool !== 'shell' || !context.agents.has(call.agent)) return undefined;
  const command = call.toolInput.command;
  if (typeof command !== 'string' || command.trim() === '') return undefined;
  if (alreadyGuarded(command, context) || context.stateRoot === undefined) return undefined;
  // The session lets `cordon reduce` join the run's record (tier, limit, peak, stall) to this call.
  const rewritten = guardedCommand(command, context, hintInCommand(command), call.sessionId, makeStateDir(context.stateRoot));
  return { kind: 'rewrite', toolInput: { ...call.toolInput, command: rewritten }, reason: 'runs under cordon control run', by: 'cgroup-linux' };
}
