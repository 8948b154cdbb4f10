import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ConfigChange, HookInstaller, HookScope, InstallContext, InstallPlan } from '@cordon/plugin-api';
import type { CordonHost } from '../bus/host.js';
import { CordonError, ERROR_CODES, wrapPluginError, type ErrorCode } from '../errors/index.js';
import { checkHookExecutable, hookCommand, portableHookCommand } from './command.js';
import { projectWarnings } from './project.js';
import { changeDiff } from './diff.js';
import { isDirectory, isLink, putText, readText, refuseHardLinked, refuseWriteProtected, removeEmptyDirs, whichIn } from './files.js';
import { readInstallRecord, recordInstallWrite, untouchedSince, writeInstallRecord, type InstallRecord } from './record.js';
import { configFormats } from './formats/index.js';
import { hookListsFor } from './hook-lists.js';
import { missingHookAgent } from '../bus/hook-agents.js';
import { readRemovedHooks, updateRemovedHooks, REMOVED_HOOKS_FILE } from './removed-choice.js';
import { holdsCordonHooks } from './present.js';
import { bothScopesProblem } from './both-scopes.js';
import { detectAgent } from './detect.js';
import { takeInstallLock } from './lock.js';

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
  /** The platform to write commands for (default `process.platform`; `win32`: the Windows shell forms, docs/hooks.md). */
  readonly platform?: string;
}

/** The result for one agent. */
export interface AgentHooksReport {
  readonly agent: string;
  /** The changes (written, or what `--write` would write), each with its unified diff. */
  readonly changes: ReadonlyArray<{ readonly path: string; readonly summary: string; readonly diff: string; readonly created: boolean; readonly deleted: boolean }>;
  readonly notes: readonly string[];
  /** What may keep the agent from running the hooks and needs the user (Codex trust cordon could not confirm). */
  readonly warnings: readonly string[];
  /** Set when the agent has no hooks at this scope: why (and what to use instead); nothing was planned. */
  readonly skipped?: string;
  /** True when the changes were applied. */
  readonly written: boolean;
}

/** An agent `--all` left out, and why (`not found here (no \`codex\` command on PATH, no directory ~/.codex)`). */
export interface PassedOver {
  readonly agent: string;
  readonly reason: string;
}

/** What {@link runInstallHooks} returns (the `--json` output of both commands). */
export interface InstallHooksReport {
  readonly mode: 'install' | 'uninstall';
  readonly scope: HookScope;
  readonly write: boolean;
  readonly agents: readonly AgentHooksReport[];
  /** `--all` only: the agents that take hooks but were left out, each with why. */
  readonly passed_over?: readonly PassedOver[];
}

interface Planned {
  readonly agent: string;
  readonly installer: HookInstaller;
  readonly ctx: InstallContext;
  plan: InstallPlan;
}

function contextFor(agent: string, options: InstallHooksOptions): InstallContext {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const command = options.scope === 'project' && options.executable === undefined ? portableHookCommand(agent, platform) : hookCommand(agent, options.executable, env, platform);
  return Object.freeze({
    scope: options.scope,
    command,
    home: env.HOME || env.USERPROFILE || homedir(),
    projectDir: resolve(options.projectDir ?? process.cwd()),
    env,
    accept: options.accept === true,
    formats: configFormats,
    hookLists: hookListsFor(command),
    readFile: readText,
    isDirectory,
    which: (name: string) => whichIn(name, env.PATH, platform, env.PATHEXT),
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

/**
 * The hook installer of `agent`. An agent no installed plugin registers is `CORDON_REGISTRY_MISSING`
 * naming the installed agents that take hooks (not those that take none, such as aider) and the
 * one the user most likely meant (bus/hook-agents.ts `missingHookAgent`); an installed agent
 * without hooks is `CORDON_BAD_INPUT`, pointing at `cordon wrap`.
 */
async function installerOf(host: CordonHost, agent: string): Promise<HookInstaller> {
  const entry = host.dialects.get(agent);
  if (!entry) throw missingHookAgent(host.dialects, agent, (e) => e.loadInstaller !== undefined);
  if (!entry.loadInstaller) {
    throw new CordonError(ERROR_CODES.BAD_INPUT, `agent "${agent}" has no hook config to write (use \`cordon wrap\` for agents without hooks)`, { details: { agent } });
  }
  return entry.loadInstaller();
}

/**
 * Why `--all` leaves out an agent its installer does not find here (`not found here (no \`codex\`
 * command on PATH, no directory /home/u/.codex)`), or undefined when it is found.
 */
async function detection(installer: HookInstaller, ctx: InstallContext): Promise<string | undefined> {
  const { detected, why } = await detectAgent(installer, ctx);
  return detected ? undefined : `not found here${why ? ` (${why})` : ''}`;
}

/** The reason `--all` gives for leaving out an agent whose hooks the user removed on purpose. */
function removedReason(agent: string, at: string): string {
  return `hooks removed on purpose with \`cordon uninstall-hooks\` (${at}); \`cordon install-hooks --agent ${agent} --write\` puts them back`;
}

/**
 * Works out every agent's changes without touching a file. All plans are made before anything
 * is written, so one unparseable file (`CORDON_CONFIG_UNPARSEABLE`) refuses the whole run and
 * leaves every file as it was.
 */
export async function planHooks(host: CordonHost, options: InstallHooksOptions): Promise<Planned[]> {
  return (await planAll(host, options)).planned;
}

/**
 * {@link planHooks}, and for `--all` each agent that takes hooks but was left out, with why: not
 * found here (what was looked for), or, for an install at user scope, hooks removed on purpose
 * (removed-choice.ts).
 */
async function planAll(host: CordonHost, options: InstallHooksOptions): Promise<{ planned: Planned[]; passedOver: PassedOver[] }> {
  const names =
    options.agents === 'all'
      ? host.dialects
          .list()
          .filter((r) => r.entry.loadInstaller)
          .map((r) => r.entry.name)
      : [...new Set(options.agents)];
  if (options.agents !== 'all' && names.length === 0) throw new CordonError(ERROR_CODES.BAD_INPUT, 'name at least one --agent, or pass --all');
  // An uninstall takes any --command (the one written may be gone): it only finds it in the configs.
  if (options.mode === 'install' && options.executable !== undefined) checkHookExecutable(options.executable, options.env ?? process.env, options.platform ?? process.platform);
  const planned: Planned[] = [];
  const passedOver: PassedOver[] = [];
  const removed = options.agents === 'all' && options.mode === 'install' && options.scope === 'user' ? readRemovedHooks(host.paths.configDir) : {};
  for (const agent of names) {
    const installer = await installerOf(host, agent);
    const ctx = contextFor(agent, options);
    try {
      if (options.agents === 'all') {
        const missing = await detection(installer, ctx);
        if (missing !== undefined) {
          passedOver.push({ agent, reason: missing });
          continue;
        }
        if (removed[agent]) {
          passedOver.push({ agent, reason: removedReason(agent, removed[agent].removed_at) });
          continue;
        }
      }
      const plan: InstallPlan = options.mode === 'install' ? await installer.install(ctx) : await installer.uninstall(ctx);
      // A named agent that has no hooks at this scope is a usage error, not a no-op.
      if (plan.skipped !== undefined && options.agents !== 'all') {
        throw new CordonError(ERROR_CODES.BAD_INPUT, `${agent} skipped: ${plan.skipped}`, { details: { agent, scope: options.scope } });
      }
      const shared = options.mode === 'install' && options.scope === 'project' && plan.skipped === undefined ? projectWarnings(plan.changes.map((c) => c.path), ctx.projectDir, ctx.command) : [];
      planned.push({ agent, installer, ctx, plan: shared.length ? { ...plan, warnings: [...(plan.warnings ?? []), ...shared] } : plan });
    } catch (error) {
      throw installerError(agent, error);
    }
  }
  return { planned, passedOver };
}

function report(agent: string, plan: InstallPlan, written: boolean): AgentHooksReport {
  return {
    agent,
    changes: plan.changes.map((c) => ({ path: c.path, summary: c.summary, diff: changeDiff(c), created: c.before === undefined, deleted: c.after === undefined })),
    notes: [...plan.notes],
    warnings: [...(plan.warnings ?? [])],
    ...(plan.skipped !== undefined ? { skipped: plan.skipped } : {}),
    written,
  };
}

/**
 * An uninstall plan made exact with the install record (see record.ts): a file install created
 * and nobody has written since is deleted; a file that existed before install and still holds
 * just what cordon wrote gets its original bytes back (when installing onto those bytes gives
 * exactly the current file, and they hold no cordon hook of an older install); any
 * other file keeps the installer's surgical removal and is never deleted. A symbolic link is
 * never deleted: its target gets the text instead.
 */
async function exactUninstall(entry: Planned, record: InstallRecord): Promise<InstallPlan> {
  const { plan, installer, ctx, agent } = entry;
  const originals = new Map<string, string | undefined>();
  for (const change of plan.changes) {
    const r = record[change.path];
    if (untouchedSince(r, change.before) && r.agent === agent) originals.set(change.path, r.original ?? undefined);
  }
  if (originals.size === 0) return plan;
  // An original is given back only when installing onto it gives exactly what is on disk now
  // (so the difference is cordon's alone) and an uninstall planned on it finds nothing of
  // cordon's (an older install's entries must not come back). `accept`: a recorded allowlist
  // (Hermes) was written by an install run with --accept.
  const onOriginals = { ...ctx, accept: true, readFile: (path: string) => (originals.has(path) ? originals.get(path) : ctx.readFile(path)) };
  let installed: InstallPlan;
  let uninstalled: InstallPlan;
  try {
    installed = await installer.install(onOriginals);
    uninstalled = await installer.uninstall(onOriginals);
  } catch {
    return plan;
  }
  const reproduced = new Set(installed.changes.filter((c) => plan.changes.some((p) => p.path === c.path && p.before === c.after)).map((c) => c.path));
  const holdsCordon = new Set(uninstalled.changes.filter((c) => (c.cordonRemoved ?? 0) > 0).map((c) => c.path));
  const dirty = new Set([...originals.keys()].filter((path) => !reproduced.has(path) || holdsCordon.has(path)));
  const changes: ConfigChange[] = plan.changes.map((change) => {
    if (!originals.has(change.path) || dirty.has(change.path)) return change;
    const original = originals.get(change.path);
    if (original === undefined) return isLink(change.path) ? change : { ...change, after: undefined, summary: `${change.summary}; delete the file (install-hooks created it and nothing else has written to it since)` };
    return { ...change, after: original, summary: `${change.summary}; the file gets back the exact bytes it had before install-hooks` };
  });
  return { ...plan, changes };
}

/**
 * `entry`'s plan with a warning when cordon's hooks for the agent are also in its config at the
 * other scope (user ↔ this project; both-scopes.ts says why that doubles every call). One
 * uninstall plan of the other scope, read only; a project that is the home directory holds the
 * user's own files, so it is not another scope there.
 */
async function withOtherScope(entry: Planned, options: InstallHooksOptions): Promise<InstallPlan> {
  const { agent, installer, ctx, plan } = entry;
  if (plan.skipped !== undefined || resolve(ctx.projectDir) === resolve(ctx.home)) return plan;
  const other: HookScope = options.scope === 'user' ? 'project' : 'user';
  let found: InstallPlan;
  try {
    found = await installer.uninstall(contextFor(agent, { ...options, scope: other }));
  } catch {
    return plan; // an unreadable config there is doctor's to report, not a reason to refuse this install
  }
  if (found.skipped !== undefined || !holdsCordonHooks(found)) return plan;
  const paths = found.changes.filter((c) => (c.cordonRemoved ?? 0) > 0).map((c) => c.path);
  const { message, fix } = bothScopesProblem(agent, other, paths, options.projectDir === undefined ? undefined : ctx.projectDir);
  return { ...plan, warnings: [...(plan.warnings ?? []), `${message}; ${fix}`] };
}

/** One write of a run, with what to put back if a later write fails. */
interface Written {
  readonly path: string;
  readonly before: string | undefined;
  /** Directories the write created (outermost first), removed again on a roll-back. */
  readonly created?: readonly string[];
}

/**
 * Puts back every file a failed run wrote (newest first) and throws `CORDON_HOOKS_WRITE_FAILED`
 * naming what failed (`what`; `failed` is the path or the agent), what was put back and anything
 * that could not be.
 */
function rollBack(journal: Written[], failed: string, error: unknown, what = `could not write ${failed}`): never {
  const restored: string[] = [];
  const stuck: string[] = [];
  for (const w of [...journal].reverse()) {
    try {
      putText(w.path, w.before);
      if (w.before === undefined) removeEmptyDirs(w.created ?? []);
      restored.push(w.path);
    } catch (again) {
      stuck.push(`${w.path} (${(again as Error).message})`);
    }
  }
  const reason = (error as Error).message ?? String(error);
  const tail = stuck.length
    ? `; these files stay changed and could not be put back: ${stuck.join(', ')}${restored.length ? `; put back as they were: ${restored.join(', ')}` : ''}`
    : restored.length
      ? `; every file written before it was put back as it was (${restored.join(', ')}), so nothing changed`
      : '; nothing had been written, so nothing changed';
  throw new CordonError(ERROR_CODES.HOOKS_WRITE_FAILED, `${what}: ${reason}${tail}`, {
    cause: error,
    details: { failed, written: stuck.map((s) => s.split(' (')[0]), not_written: [failed, ...restored] },
  });
}

/**
 * `cordon install-hooks` / `uninstall-hooks` as a library call: plans every agent (an uninstall
 * made exact with the install record), and with `write` applies every change of every agent,
 * then lets each installer verify the result with the agent (Codex: `codex app-server`
 * `hooks/list`) and applies its corrections. All or nothing: when any write fails, every file
 * this run wrote is put back and `CORDON_HOOKS_WRITE_FAILED` (exit 2) says what happened. A dry
 * run returns the diffs it would write. A writing run holds `<data>/install-hooks.lock` from
 * planning to the saved record, waiting for another writing run to finish (lock.ts).
 */
export async function runInstallHooks(host: CordonHost, options: InstallHooksOptions): Promise<InstallHooksReport> {
  if (!options.write) return installOrUninstall(host, options);
  // Two writing runs at once (a script installing agents in parallel) would plan on the same
  // bytes and each save an install record without the other's files: one at a time.
  const lock = await takeInstallLock(host.paths.dataDir, `cordon ${options.mode}-hooks --write`);
  try {
    return await installOrUninstall(host, options);
  } finally {
    lock.release();
  }
}

/** {@link runInstallHooks} once the lock of a writing run is held. */
async function installOrUninstall(host: CordonHost, options: InstallHooksOptions): Promise<InstallHooksReport> {
  const { planned, passedOver } = await planAll(host, options);
  if (options.mode === 'install') for (const p of planned) p.plan = await withOtherScope(p, options);
  const dataDir = host.paths.dataDir;
  const record = readInstallRecord(dataDir);
  const skips = options.agents === 'all' ? { passed_over: passedOver } : {};
  if (options.mode === 'uninstall') for (const p of planned) p.plan = await exactUninstall(p, record);
  for (const p of planned) {
    for (const change of p.plan.changes) {
      refuseWriteProtected(change.path);
      refuseHardLinked(change.path);
    }
  }
  if (!options.write) return { mode: options.mode, scope: options.scope, write: false, agents: planned.map((p) => report(p.agent, p.plan, false)), ...skips };

  const journal: Written[] = [];
  // Directories install created for the files this run deletes: removed once every file is
  // written, as an agent's two files in one created directory (Codex) empty it only together.
  const emptied: string[] = [];
  const apply = (agent: string, change: ConfigChange): void => {
    let created: string[] = [];
    try {
      created = putText(change.path, change.after, { before: change.before });
    } catch (error) {
      rollBack(journal, change.path, error);
    }
    journal.push({ path: change.path, before: change.before, created });
    if (options.mode === 'uninstall') {
      // A config dir install made only for this file (~/.gemini, ~/.cursor) goes with it: an
      // empty one would make the next `install-hooks --all` take the agent for installed.
      if (change.after === undefined) emptied.push(...(record[change.path]?.createdDirs ?? []));
      delete record[change.path];
    } else record[change.path] = recordInstallWrite(record[change.path], agent, change.before, change.after!, created);
  };
  for (const { agent, plan } of planned) for (const change of plan.changes) apply(agent, change);
  removeEmptyDirs(emptied);
  const merged = new Map<string, InstallPlan>();
  for (const p of planned) {
    let plan = p.plan;
    if (options.mode === 'install' && p.installer.verify && !p.plan.skipped) {
      let fix: InstallPlan;
      try {
        fix = await p.installer.verify(p.ctx, p.plan);
      } catch (error) {
        rollBack(journal, p.agent, installerError(p.agent, error), `checking ${p.agent}'s installed hooks failed`);
      }
      for (const change of fix.changes) apply(p.agent, change);
      plan = { changes: [...plan.changes, ...fix.changes], notes: [...plan.notes, ...fix.notes], warnings: [...(plan.warnings ?? []), ...(fix.warnings ?? [])] };
    }
    merged.set(p.agent, plan);
  }
  if (journal.length > 0) {
    try {
      writeInstallRecord(dataDir, record);
    } catch (error) {
      rollBack(journal, join(dataDir, 'install-hooks.json'), error);
    }
  }
  // The user's choice at user scope (removed-choice.ts): an uninstall says "no hooks for this
  // agent", which doctor then reports as such; an install takes it back.
  const agents = planned.filter((p) => !p.plan.skipped).map((p) => p.agent);
  if (options.scope === 'user' && agents.length) {
    try {
      updateRemovedHooks(host.paths.configDir, options.mode === 'uninstall' ? { removed: agents } : { restored: agents });
    } catch (error) {
      rollBack(journal, join(host.paths.configDir, REMOVED_HOOKS_FILE), error);
    }
  }
  const withChoice = (agent: string, plan: InstallPlan): InstallPlan =>
    options.mode === 'uninstall' && options.scope === 'user' && !plan.skipped
      ? { ...plan, notes: [...plan.notes, `recorded that ${agent}'s hooks were removed on purpose: \`cordon doctor\` reports that instead of a problem, and \`install-hooks --all\` leaves ${agent} out; \`cordon install-hooks --agent ${agent} --write\` puts them back`] }
      : plan;
  return { mode: options.mode, scope: options.scope, write: true, agents: planned.map((p) => report(p.agent, withChoice(p.agent, merged.get(p.agent)!), true)), ...skips };
}
