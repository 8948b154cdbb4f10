// Where an agent's cordon hooks stand, read without writing anything: installed or not at a scope,
// current or stale, and whether each installed hook command still starts. What `doctor` reports
// per agent and what `arm --live` counts as hooked (its agents whose writes are refused).
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { HookScope, InstallPlan } from '@cordon/plugin-api';
import type { CordonHost } from '../bus/host.js';
import { whichIn } from './files.js';
import { planHooks } from './run.js';
import { holdsCordonHooks } from './present.js';
import { lazyPackage } from '../util/lazy-package.js';
import { safely } from '../util/safely.js';
import { commandProblem } from '../process/start-failure.js';

const shlex = lazyPackage<{ split(command: string): string[] }>('shlex');

/**
 * The cordon hook commands for `agent` found in a config file's text, in every format we write:
 * a JSON or TOML string (`"command": "… hook --agent codex"`, backslash escapes undone) or a YAML
 * plain value (`command: … hook --agent hermes`). The command always ends with `hook --agent <name>`.
 */
export function hookCommandsIn(text: string, agent: string): string[] {
  const found = new Set<string>();
  const tail = `hook --agent ${agent}`;
  for (let at = text.indexOf(tail); at >= 0; at = text.indexOf(tail, at + 1)) {
    const after = text[at + tail.length];
    if (after !== undefined && !/["'\s,}\]]/.test(after)) continue; // `gemini-x` is another agent
    const lineStart = text.lastIndexOf('\n', at) + 1;
    const line = text.slice(lineStart, at + tail.length);
    // The opening quote of a JSON/TOML string: the last `"` not escaped by a backslash.
    let open = -1;
    for (let i = line.length - tail.length - 1; i >= 0; i--) {
      if (line[i] === '"' && line[i - 1] !== '\\') {
        open = i;
        break;
      }
    }
    const raw = open >= 0 ? line.slice(open + 1) : line.replace(/^\s*(?:-\s+)?(?:[\w.-]+:\s+)?/, '');
    found.add((open >= 0 ? raw.replace(/\\(["\\])/g, '$1') : raw).trim());
  }
  return [...found];
}

/**
 * Why a hook command cannot start, or `undefined` when it can: its program (the first word) is an
 * absolute path that is missing, a directory or not executable, or a bare name not on `PATH`, said
 * in the words of a failed start (`runs /x/node: is a directory`; process/start-failure.ts); a
 * `.cjs`/`.js`/`.mjs` script given to it (cordon's `bin/run.cjs`) is missing.
 */
export function brokenCommand(command: string, env: NodeJS.ProcessEnv): string | undefined {
  let argv: string[];
  try {
    argv = shlex().split(command);
  } catch {
    return `cannot be split into words: ${command}`;
  }
  const [program, script] = argv;
  if (!program) return 'is empty';
  if (isAbsolute(program)) {
    const problem = commandProblem(program, { env });
    if (problem) return `runs ${program}: ${problem.why}`;
  } else if (!whichIn(program, env.PATH, process.platform, env.PATHEXT)) {
    // In the words of a failed start: a directory of that name on PATH is said as such.
    return `runs \`${program}\`: ${commandProblem(program, { env })?.why ?? 'not found on PATH'}`;
  }
  if (script && /\.(c|m)?js$/.test(script) && !existsSync(script)) return `runs ${script}, which does not exist (cordon moved or was uninstalled)`;
  return undefined;
}

type Planned = Awaited<ReturnType<typeof planHooks>>[number];

/**
 * Where one agent's hooks stand at one scope: `none` (the agent has no hooks at this scope),
 * `unreadable` (its config does not parse; `error` says why), `absent` (no cordon hook in it), or
 * `present`, with `commands` the hook commands found (none when only leftovers remain), `broken`
 * naming each installed command that cannot start and `current` true when an install would change nothing.
 */
export type AgentHookState =
  | { readonly kind: 'none' }
  | { readonly kind: 'unreadable'; readonly error: unknown }
  | { readonly kind: 'absent'; readonly planned: Planned }
  | {
      readonly kind: 'present';
      readonly planned: Planned;
      readonly removal: InstallPlan;
      /**
       * Cordon's hook commands found in the agent's config files. Empty when only leftovers of
       * them remain (Codex trust entries of hooks no longer in hooks.json): the hooks are missing, not stale.
       */
      readonly commands: readonly string[];
      readonly broken: ReadonlyArray<{ readonly path: string; readonly why: string }>;
      readonly current: boolean;
    };

/** Scope and environment of {@link agentHookState} and {@link hookedAgents}. */
export interface HookStateOptions {
  readonly scope: HookScope;
  /** Project root for the project scope (default: cwd). */
  readonly projectDir?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** {@link AgentHookState} of `agent` at a scope, from an install and an uninstall plan (computed, never written). */
export async function agentHookState(host: CordonHost, agent: string, options: HookStateOptions): Promise<AgentHookState> {
  const env = options.env ?? process.env;
  let planned: Planned[];
  try {
    planned = await planHooks(host, { mode: 'install', agents: [agent], scope: options.scope, projectDir: options.projectDir, env });
  } catch (error) {
    if (/skipped:/.test((error as Error).message)) return { kind: 'none' }; // no hooks at this scope for this agent
    return { kind: 'unreadable', error };
  }
  const p = planned[0];
  if (!p || p.plan.skipped !== undefined) return { kind: 'none' };
  const removal = await safely(() => p.installer.uninstall(p.ctx), undefined);
  if (!removal || !holdsCordonHooks(removal)) return { kind: 'absent', planned: p };
  const found = removal.changes.flatMap((c) => hookCommandsIn(c.before ?? '', agent).map((command) => ({ path: c.path, command })));
  const broken = found.flatMap(({ path, command }) => {
    const why = brokenCommand(command, env);
    return why ? [{ path, why }] : [];
  });
  return { kind: 'present', planned: p, removal, commands: found.map((f) => f.command), broken, current: p.plan.changes.length === 0 };
}

/**
 * The agents whose cordon hooks are installed and current (an install would change nothing, and
 * every installed command starts) at user scope or in the project at `projectDir`: the agents
 * whose tool calls `cordon hook` sees. What doctor reports as `ok hooks installed and current` and
 * what `arm --live` names as hooked, without asking the agent itself (Codex trust, Hermes consent), so nothing is started.
 */
export async function hookedAgents(host: CordonHost, options: { projectDir?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string[]> {
  const agents = host.dialects.list().filter((r) => r.entry.loadInstaller).map((r) => r.entry.name);
  const hooked: string[] = [];
  for (const agent of agents) {
    for (const scope of ['user', 'project'] as const) {
      const state = await agentHookState(host, agent, { scope, projectDir: options.projectDir, env: options.env });
      if (state.kind === 'present' && state.current && state.broken.length === 0) {
        hooked.push(agent);
        break;
      }
    }
  }
  return hooked;
}
