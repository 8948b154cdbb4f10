import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { HookInstaller, HookScope, InstallContext, InstallPlan } from '@cordon/plugin-api';
import type { CordonHost } from '../bus/host.js';
import { whichIn } from '../install-hooks/files.js';
import { planHooks } from '../install-hooks/run.js';
import { configProblem } from '../install-hooks/formats/unparseable.js';
import { readRemovedHooks } from '../install-hooks/removed-choice.js';
import { holdsCordonHooks } from '../install-hooks/present.js';
import { lazyPackage } from '../util/lazy-package.js';
import { commandProblem } from '../process/start-failure.js';
import type { Finding } from './report.js';

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
 * `present`, with `broken` naming each installed command that cannot start and `current` true
 * when an install would change nothing.
 */
export type AgentHookState =
  | { readonly kind: 'none' }
  | { readonly kind: 'unreadable'; readonly error: unknown }
  | { readonly kind: 'absent'; readonly planned: Planned }
  | { readonly kind: 'present'; readonly planned: Planned; readonly removal: InstallPlan; readonly broken: ReadonlyArray<{ readonly path: string; readonly why: string }>; readonly current: boolean };

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
  const broken = removal.changes.flatMap((c) => hookCommandsIn(c.before ?? '', agent).flatMap((command) => {
    const why = brokenCommand(command, env);
    return why ? [{ path: c.path, why }] : [];
  }));
  return { kind: 'present', planned: p, removal, broken, current: p.plan.changes.length === 0 };
}

/**
 * The agents whose cordon hooks are installed and current (an install would change nothing, and
 * every installed command starts) at user scope or in the project at `projectDir`: the agents
 * whose tool calls `cordon hook` sees. What doctor reports as `ok hooks installed and current`,
 * without asking the agent itself (Codex trust, Hermes consent), so nothing is started.
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

/**
 * Per agent with a hook config and scope: are cordon's hooks installed and current (an install
 * would change nothing), does each installed command still start, does the agent accept them
 * (Codex's trust, as `codex app-server` `hooks/list` reports it; Hermes' consent allowlist).
 * An agent found here without cordon's hooks is a problem while no agent has them, and
 * information once one has; one whose hooks `uninstall-hooks` removed on purpose (user scope,
 * install-hooks/removed-choice.ts) is information saying so. Reads only: plans are computed, never written.
 */
export async function hookFindings(host: CordonHost, options: { scope: HookScope; projectDir?: string; env?: NodeJS.ProcessEnv }): Promise<Finding[]> {
  const env = options.env ?? process.env;
  const findings: Finding[] = [];
  let hooked = 0;
  // Agents whose hooks the user took out with `uninstall-hooks` (user scope): said, not failed.
  const removedOnPurpose = options.scope === 'user' ? readRemovedHooks(host.paths.configDir) : {};
  const agents = host.dialects
    .list()
    .filter((r) => r.entry.loadInstaller)
    .map((r) => r.entry.name);
  for (const agent of agents) {
    const check = `hooks:${agent}:${options.scope}`;
    const state = await agentHookState(host, agent, { scope: options.scope, projectDir: options.projectDir, env });
    if (state.kind === 'none') continue;
    if (state.kind === 'unreadable') {
      // Doctor edits nothing: install-hooks' "refusing to edit it" would not be true of doctor.
      findings.push({ check, status: 'problem', message: `cannot read the config: ${configProblem(state.error)}`, fix: `repair or move the file it names (\`cordon install-hooks\` will not edit it until then), then run doctor again` });
      continue;
    }
    const { installer, ctx, plan } = state.planned;
    const install = `cordon install-hooks --agent ${agent}${options.scope === 'project' ? ' --scope project' : ''} --write`;
    if (state.kind === 'absent') {
      // A project without cordon's hooks is the usual case; only the user scope speaks for the agent.
      if (options.scope === 'project') continue;
      const removed = removedOnPurpose[agent];
      if (removed) {
        findings.push({ check, status: 'info', message: `hooks removed on purpose (\`cordon uninstall-hooks\`, ${removed.removed_at}); \`${install}\` puts them back`, details: { removedOnPurpose: true, removedAt: removed.removed_at } });
        continue;
      }
      const detected = await safely(() => installer.detect(ctx), false);
      findings.push(
        detected
          ? { check, status: 'problem', message: `${agent} is in use here (its command is on PATH or its home directory exists) but cordon's hooks are not in its config`, fix: install, details: { missing: true } }
          : { check, status: 'info', message: `${agent} not found here (no command on PATH, no home directory) and no cordon hooks installed` },
      );
      continue;
    }
    hooked++;
    // The files holding cordon's hooks, for rows that name them (index.ts: hooks at both scopes).
    const configs = state.removal.changes.filter((c) => (c.cordonRemoved ?? 0) > 0).map((c) => c.path);
    for (const b of state.broken) {
      findings.push({ check, status: 'problem', message: `the hook command in ${b.path} ${b.why}`, fix: install, details: { path: b.path, installed: true, configs } });
    }
    if (!state.current) {
      findings.push({ check, status: 'problem', message: `cordon's hooks are installed but stale: an install would change ${plan.changes.map((c) => c.path).join(', ')}`, fix: install, details: { paths: plan.changes.map((c) => c.path), installed: true, configs } });
    } else if (state.broken.length === 0) {
      findings.push({ check, status: 'ok', message: 'hooks installed and current', details: { installed: true, configs } });
    }
    findings.push(...(await acceptance(agent, check, installer, ctx, plan, install)));
  }
  // Cordon hooked into no agent at all is a problem; once it is in one, another agent merely
  // installed here (an old home directory, a CLI tried once) is the user's choice, said, not failed.
  if (hooked === 0) return findings;
  return findings.map((f) => (f.details?.missing === true && f.status === 'problem' ? { ...f, status: 'info' as const, message: `${f.message} (cordon sees none of its tool calls)` } : f));
}

/** Whether the agent will run the installed hooks: Codex's trust entries, Hermes' consent. */
async function acceptance(agent: string, check: string, installer: HookInstaller, ctx: InstallContext, plan: InstallPlan, install: string): Promise<Finding[]> {
  const out: Finding[] = [];
  if (installer.verify) {
    const verified = await safely(() => installer.verify!(ctx, plan), undefined);
    if (!verified) out.push({ check, status: 'problem', message: `could not ask ${agent} whether it accepts the hooks`, fix: install });
    else {
      for (const warning of verified.warnings ?? []) out.push({ check, status: 'problem', message: warning, fix: install });
      if (verified.changes.length) out.push({ check, status: 'problem', message: `${agent} does not trust every cordon hook (it silently skips untrusted hooks)`, fix: install });
      for (const note of verified.notes) out.push({ check, status: 'ok', message: note });
    }
  }
  if (agent === 'hermes') {
    const consented = await safely(() => installer.install({ ...ctx, accept: true }), undefined);
    if (consented && consented.changes.length > plan.changes.length) {
      out.push({ check, status: 'problem', message: 'Hermes has not recorded consent for cordon\'s hooks: a run without a terminal skips them', fix: `${install} --accept` });
    }
  }
  return out;
}

async function safely<T, F>(run: () => Promise<T> | T, fallback: F): Promise<T | F> {
  try {
    return await run();
  } catch {
    return fallback;
  }
}
