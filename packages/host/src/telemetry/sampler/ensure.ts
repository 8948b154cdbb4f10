import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { ensurePrivateDir } from '../../io/private-dir.js';
import { join } from 'node:path';
import { HOST_ROOT } from '../../util/host-root.js';
import { sleepSync } from '../../util/sleep-sync.js';
import { samplerSettings } from './config.js';
import { SAMPLER_FILES } from './files.js';
import { identify } from './identity.js';
import { acquireSamplerLock, recordLockOwner, type LockOwner } from './lock.js';
import { readSamplerEvents, SAMPLER_EVENTS_TAIL_BYTES } from './state.js';

/**
 * V8 flags of the sampler process. `--no-memory-reducer`: V8's memory reducer shrinks the heap of
 * a process whose allocation rate dropped with extra garbage collections, which for the sampler
 * (a small heap that stays small) cost a third of its CPU over its first ~20 s for nothing
 * (`npm run bench:sampler`).
 */
export const SAMPLER_NODE_FLAGS: readonly string[] = Object.freeze(['--no-memory-reducer']);

/** The largest idle timeout passed on, ms (about 31 years: "off"). */
const MAX_IDLE_MS = 1e12;

/** Input of {@link ensureSampler}. */
export interface EnsureSamplerOptions {
  /** The session directory (markers and samples live here); created if missing. */
  readonly dir: string;
  /** Root of the process tree to measure: the agent's pid (or the wrapped child's). */
  readonly rootPid: number;
  /** Environment for settings and for the sampler process (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** cordon's data directory, for the sampler's log and plugin discovery (default: from `env`). */
  readonly dataDir?: string;
  /** Idle timeout in ms instead of `CORDON_SAMPLER_IDLE`; `Infinity` turns it off (`wrap`). */
  readonly idleMs?: number;
  /** The platform whose rules apply (default `process.platform`; tests). */
  readonly platform?: NodeJS.Platform;
  /** On win32, how long the starting hook waits for the sampler's first event, ms (default {@link WIN32_START_WAIT_MS}). */
  readonly startWaitMs?: number;
  /**
   * When sampling was asked for, epoch ms: the wrapped command's spawn (`wrap`), the marker that
   * starts the sampler (the hook). The sampler records it in its `start` event, and `cordon reduce`
   * starts the session's span there rather than at the first tick, which comes a Node start-up and
   * one interval later. Default: now.
   */
  readonly since?: number;
}

/**
 * How long, at most, the hook that starts a session's sampler on Windows waits for the sampler's
 * `start` (or `stop`) event, ms. On Windows the hook only knows its parent, the shell the agent ran
 * it through (`cmd.exe`, PowerShell, Git Bash); the sampler finds the agent above that shell in the
 * process table (`ProcessTreeSampler.agentRoot`), which it can do only while the shell, and so this
 * hook, still runs. Once per session; a Node start plus one table read on Windows (1–2 s under
 * Wine, more on a loaded machine). Inside the hook's own bound (`CORDON_HOOK_TIMEOUT_MS`, 10 s).
 */
export const WIN32_START_WAIT_MS = 8_000;

/**
 * Blocks (sleeping 20 ms between looks) until `sampler.jsonl` in `dir` holds an event of the
 * sampler `pid`, or `maxMs` pass. Never throws.
 */
function awaitSamplerStart(dir: string, pid: number, maxMs: number): void {
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    if (readSamplerEvents(dir, SAMPLER_EVENTS_TAIL_BYTES).some((event) => event.pid === pid)) return;
    sleepSync(20);
  }
}

/** What {@link ensureSampler} did. */
export type EnsureSamplerResult =
  | { readonly started: true; readonly pid: number; readonly generation: number }
  | { readonly started: false; readonly reason: 'running'; readonly pid: number; readonly generation: number }
  | { readonly started: false; readonly reason: 'disabled' | 'unsupported' | 'no-root' | 'spawn-failed' };

/**
 * Makes sure one sampler runs for the session in `dir`; called by the hook on session start and
 * on every tool start (so agents without a session-start event are sampled too).
 *
 * Cost on the hook path when a sampler runs: one directory listing, one small file read and one
 * `/proc/<pid>/stat` read. When none runs, the one caller that wins the lock
 * ({@link acquireSamplerLock}) removes a stale `STOP`, spawns the sampler fully detached (own
 * session via `setsid`, every stdio on /dev/null, unref'd: the agent hook docs; docs/references.md, never hold the hook open; so no
 * agent waits for it and an agent killing the hook's process group does not kill it) and records
 * the sampler's pid in the lock. It does not wait for the sampler, except on Windows, where the
 * starting hook waits (at most {@link WIN32_START_WAIT_MS}, once per session) until the sampler
 * has found the agent above the hook's shell. Throws only on I/O errors in
 * `dir` and on a lock generation with no safe successor (lock.ts); the hot path catches and logs
 * those.
 */
export function ensureSampler(options: EnsureSamplerOptions): EnsureSamplerResult {
  const env = options.env ?? process.env;
  const settings = samplerSettings(env);
  if (settings.sampler === 'off') return { started: false, reason: 'disabled' };
  const { dir, rootPid } = options;
  if (existsSync(join(dir, SAMPLER_FILES.unsupported))) return { started: false, reason: 'unsupported' };
  const root = identify(rootPid);
  if (!root) return { started: false, reason: 'no-root' };
  ensurePrivateDir(dir);
  const self = identify(process.pid) ?? { pid: process.pid };
  const lock = acquireSamplerLock(dir, self);
  if (!lock.acquired) return { started: false, reason: 'running', pid: lock.owner.pid, generation: lock.generation };
  rmSync(join(dir, SAMPLER_FILES.stop), { force: true });
  const idleMs = options.idleMs === undefined ? settings.idleMs : Math.min(options.idleMs, MAX_IDLE_MS);
  const args = [...SAMPLER_NODE_FLAGS, samplerEntry(), '--dir', dir, '--pid', String(rootPid), '--interval', String(settings.intervalMs), '--idle', String(idleMs), '--generation', String(lock.generation)];
  if (options.dataDir !== undefined) args.push('--data', options.dataDir);
  if (root.start !== undefined) args.push('--root-start', String(root.start)); // so a recycled pid is not sampled
  args.push('--since', String(Math.round(options.since ?? Date.now())));
  let pid: number | undefined;
  try {
    // Loaded here, not at the top: most hook calls find the sampler running and never spawn.
    const { spawn } = process.getBuiltinModule('node:child_process') as typeof import('node:child_process');
    const child = spawn(process.execPath, args, { cwd: dir, env, detached: true, stdio: 'ignore', windowsHide: true });
    child.on('error', () => undefined); // reported through the lock going stale; the next hook retries
    child.unref();
    pid = child.pid;
  } catch {
    pid = undefined;
  }
  // A failed spawn leaves the lock naming this (soon dead) hook, so the next hook takes generation + 1.
  if (pid === undefined) return { started: false, reason: 'spawn-failed' };
  const owner: LockOwner = { ...(identify(pid) ?? { pid }), role: 'sampler', generation: lock.generation, at: Date.now() };
  recordLockOwner(dir, owner);
  if ((options.platform ?? process.platform) === 'win32') awaitSamplerStart(dir, pid, options.startWaitMs ?? WIN32_START_WAIT_MS);
  return { started: true, pid, generation: lock.generation };
}

/**
 * Asks the session's sampler to stop by creating `STOP` in `dir` (session end; `wrap` when its
 * child exits). The sampler sees it at its next slow check (within a second), then writes its
 * buffered samples and its `stop` event; a caller that must not return before those are written
 * waits for them (`awaitSamplerStop` in state.ts, `wrap`). Never called on a turn end (`Stop`), which
 * fires after every turn (a gap in uncoalesced/cordon).
 */
export function stopSampler(dir: string): void {
  if (!existsSync(dir)) return;
  writeFileSync(join(dir, SAMPLER_FILES.stop), '', { mode: 0o600 });
}

/**
 * Absolute path of the sampler's process entry, the built `dist/telemetry/sampler/run.js` (also
 * when this module runs from TypeScript sources in tests, or inlined in the hook bundle).
 */
export function samplerEntry(): string {
  return join(HOST_ROOT, 'dist', 'telemetry', 'sampler', 'run.js');
}
