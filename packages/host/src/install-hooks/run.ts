import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { HookInstaller, HookScope, InstallContext, InstallPlan } from '@cordon/plugin-api';
import type { CordonHost } from '../bus/host.js';
import { CordonError, ERROR_CODES, wrapPluginError, type ErrorCode } from '../errors/index.js';
import { hookCommand } from './command.js';
import { changeDiff } from './diff.js';
import { applyChange, isDirectory, readText, whichIn } from './files.js';
import { configFormats } from './formats/index.js';
import { hookLists } from './hook-lists.js';

/** Options of {@link planHooks} / {@link runInstallHooks}. */
export interface InstallHooksOptions {
  /** `install` (install-hooks) or `uninstall` (uninstall-hooks). */
  readonly mode: 'install' | 'uninstall';
  /** Agent names (`--agent`, repeatable), or `all`: every registered dialect whose agent is detected here. */
  readonly agents: readonly string[] | 'all';
  readonly scope: HookScope;
  /** Project root for `--scope project` (default: cwd). */
  readonly projectDir?: string;
  /** `--accept`: consent to approving the hook in the agent's own allowlist (Hermes). */
  readonly accept?: boolean;
  /** `--write`: apply the changes (default: dry run). */
  readonly write?: boolean;
  /** `--command`: the cordon executable to write instead of `<node> <this bin/run.cjs>`. */
  readonly executable?: string;
  /** Environment (`HOME`, `PATH`, `CODEX_HOME`, `HERMES_HOME`; default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
}

/** The result for one agent. */
export interface AgentHooksReport {
  readonly agent: string;
  /** The changes (written, or what `--write` would write), each with its unified diff. */
  readonly changes: ReadonlyArray<{ readonly path: string; readonly summary: string; readonly diff: string; readonly created: boolean; readonly deleted: boolean }>;
  readonly notes: readonly string[];
  /** Set when the agent has no hooks at this scope: why (and what to use instead); nothing was planned. */
  readonly skipped?: string;
  /** True when the changes were applied. */
  readonly written: boolean;
}

/** What {@link runInstallHooks} returns (the `--json` output of both commands). */
export interface InstallHooksReport {
  readonly mode: 'install' | 'uninstall';
  readonly scope: HookScope;
  readonly write: boolean;
  readonly agents: readonly AgentHooksReport[];
}

interface Planned {
  readonly agent: string;
  readonly installer: HookInstaller;
  readonly ctx: InstallContext;
  readonly plan: InstallPlan;
}

function contextFor(agent: string, options: InstallHooksOptions): InstallContext {
  const env = options.env ?? process.env;
  return Object.freeze({
    scope: options.scope,
    command: hookCommand(agent, options.executable, env),
    home: env.HOME || env.USERPROFILE || homedir(),
    projectDir: resolve(options.projectDir ?? process.cwd()),
    env,
    accept: options.accept === true,
    formats: configFormats,
    hookLists,
    readFile: readText,
    isDirectory,
    which: (name: string) => whichIn(name, env.PATH),
  });
}

const CODES = new Set<string>(Object.values(ERROR_CODES));

/**
 * An installer's error as a `CordonError`: the host's editors throw those already; a plugin
 * (which cannot import host classes) throws a plain error carrying a catalogue `code`; anything
 * else is the plugin's failure (`CORDON_PLUGIN_ERROR`).
 */
function installerError(agent: string, error: unknown): CordonError {
  if (error instanceof CordonError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CODES.has(code)) return new CordonError(code as ErrorCode, (error as Error).message, { cause: error, details: { agent } });
  return wrapPluginError(agent, 'install-hooks', error);
}

async function installerOf(host: CordonHost, agent: string): Promise<HookInstaller> {
  const entry = host.dialects.require(agent);
  if (!entry.loadInstaller) {
    throw new CordonError(ERROR_CODES.BAD_INPUT, `agent "${agent}" has no hook config to write (use \`cordon wrap\` for agents without hooks)`, { details: { agent } });
  }
  return entry.loadInstaller();
}

/**
 * Works out every agent's changes without touching a file. All plans are made before anything
 * is written, so one unparseable file (`CORDON_CONFIG_UNPARSEABLE`) refuses the whole run and
 * leaves every file as it was.
 */
export async function planHooks(host: CordonHost, options: InstallHooksOptions): Promise<Planned[]> {
  const names =
    options.agents === 'all'
      ? host.dialects
          .list()
          .filter((r) => r.entry.loadInstaller)
          .map((r) => r.entry.name)
      : [...new Set(options.agents)];
  if (options.agents !== 'all' && names.length === 0) throw new CordonError(ERROR_CODES.BAD_INPUT, 'name at least one --agent, or pass --all');
  const planned: Planned[] = [];
  for (const agent of names) {
    const installer = await installerOf(host, agent);
    const ctx = contextFor(agent, options);
    try {
      if (options.agents === 'all' && !(await installer.detect(ctx))) continue;
      const plan = options.mode === 'install' ? await installer.install(ctx) : await installer.uninstall(ctx);
      // A named agent that has no hooks at this scope is a usage error, not a no-op.
      if (plan.skipped !== undefined && options.agents !== 'all') {
        throw new CordonError(ERROR_CODES.BAD_INPUT, `${agent} skipped: ${plan.skipped}`, { details: { agent, scope: options.scope } });
      }
      planned.push({ agent, installer, ctx, plan });
    } catch (error) {
      throw installerError(agent, error);
    }
  }
  return planned;
}

function report(agent: string, plan: InstallPlan, written: boolean): AgentHooksReport {
  return {
    agent,
    changes: plan.changes.map((c) => ({ path: c.path, summary: c.summary, diff: changeDiff(c), created: c.before === undefined, deleted: c.after === undefined })),
    notes: [...plan.notes],
    ...(plan.skipped !== undefined ? { skipped: plan.skipped } : {}),
    written,
  };
}

/**
 * `cordon install-hooks` / `uninstall-hooks` as a library call: plans every agent, and with
 * `write` applies the changes, then lets each installer verify the result with the agent
 * (Codex: `codex app-server` `hooks/list`) and applies its corrections. A dry run returns the
 * diffs it would write.
 */
export async function runInstallHooks(host: CordonHost, options: InstallHooksOptions): Promise<InstallHooksReport> {
  const planned = await planHooks(host, options);
  const agents: AgentHooksReport[] = [];
  for (const { agent, installer, ctx, plan } of planned) {
    if (!options.write) {
      agents.push(report(agent, plan, false));
      continue;
    }
    for (const change of plan.changes) applyChange(change);
    let merged: InstallPlan = plan;
    if (options.mode === 'install' && installer.verify) {
      let fix: InstallPlan;
      try {
        fix = await installer.verify(ctx, plan);
      } catch (error) {
        throw installerError(agent, error);
      }
      for (const change of fix.changes) applyChange(change);
      merged = { changes: [...plan.changes, ...fix.changes], notes: [...plan.notes, ...fix.notes] };
    }
    agents.push(report(agent, merged, true));
  }
  return { mode: options.mode, scope: options.scope, write: options.write === true, agents };
}
