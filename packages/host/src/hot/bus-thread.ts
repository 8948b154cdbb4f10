import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { HookName, Logger } from '@cordon/plugin-api';
import { loadHostDirect } from '../bus/load-host.js';
import { appendMarker, type Marker } from '../telemetry/markers.js';
import { epochMs, sinceStartMs } from '../util/clock.js';
import { HOST_ROOT } from '../util/host-root.js';
import { createFileLogger } from '../util/log.js';
import { resolvePaths } from '../util/paths.js';
import { handleHookPayload, type HandleOptions, type HandleStep, type HookOutcome } from './handle.js';

/**
 * The hook's plugin work on a thread of its own, so that the hook's time bound holds whatever a
 * plugin does. A busy main thread runs no timers: a `beforeToolCall` tap that
 * loops synchronously would keep the hook past `CORDON_HOOK_TIMEOUT_MS`. On a worker thread the
 * main thread stays free, and at the bound it stops the thread with `worker.terminate()` (V8's
 * TerminateExecution ends a busy loop as well as a pending promise), writes the marker the call
 * would have had, naming the plugin whose tap was running (`plugin_failure`), and exits 0.
 *
 * Used only when plugins other code than cordon's own dialects may run in the hot hooks (see
 * `hotTapPackages` and `runHook`); a thread costs a few milliseconds to start, the plain hot path
 * pays nothing.
 */

/** What the main thread hands to the bus thread. */
export interface BusJob {
  /** `--agent`, when given. */
  readonly agent?: string;
  /** The parsed payload. */
  readonly payload: Record<string, unknown>;
  /** Where the agent-pid walk starts (the hook process's parent). */
  readonly parentPid?: number;
  /** The payload was over the size limit: `HandleOptions.oversized`. */
  readonly oversized?: HandleOptions['oversized'];
  /** Set to 1 by the thread right before it appends a marker (so the main thread never writes a second). */
  readonly writing: Int32Array;
  /** The hook process's `process.argv`, so plugin code on the thread sees the same (a guard writes `argv[1]`, cordon's bin, into commands). */
  readonly argv?: readonly string[];
}

/** Messages from the bus thread. */
type BusMessage =
  | { readonly type: 'taps'; readonly hook: 'beforeToolCall' | 'afterToolCall'; readonly fallback: Marker }
  | { readonly type: 'tap'; readonly hook: HookName; readonly plugin: string; readonly tap: string }
  | { readonly type: 'done'; readonly outcome: Pick<HookOutcome, 'stdout' | 'stderr' | 'exitCode' | 'marker'> }
  | { readonly type: 'failed'; readonly error: string };

/** What {@link startBusThread} returns. */
export interface BusThread {
  /** The outcome the thread reported; never rejects (a thread that dies reports exit 0, empty output). */
  readonly result: Promise<Pick<HookOutcome, 'stdout' | 'stderr' | 'exitCode' | 'marker'>>;
  /**
   * Stops the thread (the time bound was reached) and, when it was inside a tool hook's taps and
   * had not begun writing its own marker, appends the marker the call gets without a decision,
   * with `plugin_failure` naming the plugin whose tap was running (`unknown` before any tap
   * started). Resolves with what it found; never rejects.
   */
  stop(): Promise<Stopped>;
}

/** Where a stopped bus thread was: loading plugins, inside a tool hook's taps, or writing (or done). */
export interface Stopped {
  readonly phase: 'loading' | 'taps' | 'writing';
  readonly hook?: string;
  readonly plugin?: string;
  /** The marker written for the call. */
  readonly marker?: Marker;
}

const SILENT = Object.freeze({ stdout: '', stderr: '', exitCode: 0 });

/**
 * `node:worker_threads`, loaded only when a thread is wanted. Through `require`, not `import()`:
 * the hook bundle runs as a `vm.Script` from V8's code cache, where a dynamic `import()` fails
 * with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING.
 */
function workerThreads(): typeof import('node:worker_threads') {
  return process.getBuiltinModule('node:worker_threads') as typeof import('node:worker_threads');
}

/**
 * Starts the bus thread on `job` with environment `env`. The thread runs the hook bundle itself
 * (`dist/hot/hook.cjs`, its {@link runBusWorker}) when this module is running from it, else the
 * module graph under `dist/hot/`.
 */
export async function startBusThread(job: Omit<BusJob, 'writing'>, env: NodeJS.ProcessEnv, dataDir: string, log: Logger): Promise<BusThread> {
  const { Worker } = workerThreads();
  // This process's main thread compiles only part of an ordinary run: bin/run.cjs keeps its code cache apart.
  (globalThis as { __cordonCodeCachePartial?: boolean }).__cordonCodeCachePartial = true;
  const writing = new Int32Array(new SharedArrayBuffer(4));
  const self = import.meta.filename ?? fileURLToPath(import.meta.url);
  const workerData: BusJob = { ...job, writing, argv: [...process.argv] };
  // stdout/stderr of the thread are the process's own: a plugin's console output must not reach the agent.
  const options = { workerData, env, stdout: true, stderr: true } as const;
  const worker: Worker = self.endsWith('.cjs')
    ? new Worker(`require(${JSON.stringify(self)}).runBusWorker()`, { ...options, eval: true })
    : new Worker(join(HOST_ROOT, 'dist', 'hot', 'bus-worker.js'), options);
  worker.stdout.resume();
  worker.stderr.resume();
  let taps: { hook: string; fallback: Marker } | undefined;
  let plugin: string | undefined;
  let ended = false;
  /** The marker the call gets when the thread ended inside its taps (see {@link BusThread.stop}). */
  const record = (why: 'stopped' | 'never-settled'): Stopped => {
    ended = true;
    if (Atomics.load(writing, 0) === 1) return { phase: 'writing' };
    if (!taps) return { phase: 'loading' };
    const name = plugin ?? 'unknown';
    const what = why === 'stopped' ? "ran past the hook's time limit and was stopped" : 'never settled (the thread ran out of work with its promise pending)';
    log.error(`${taps.hook} tap of plugin ${name} ${what}; the call proceeds undecided`, { plugin: name, hook: taps.hook });
    const marker: Marker = { ...taps.fallback, ts: Math.round(epochMs() * 1000) / 1000, plugin_failure: name, hook_overhead_ms: Math.round(sinceStartMs() * 1000) / 1000 };
    try {
      appendMarker(dataDir, marker);
      return { phase: 'taps', hook: taps.hook, plugin: name, marker };
    } catch (error) {
      log.error('marker append failed', { event: marker.event, error: error instanceof Error ? error.message : String(error) });
      return { phase: 'taps', hook: taps.hook, plugin: name };
    }
  };
  const result = new Promise<Pick<HookOutcome, 'stdout' | 'stderr' | 'exitCode' | 'marker'>>((resolvePromise) => {
    worker.on('message', (message: BusMessage) => {
      if (message.type === 'taps') {
        taps = { hook: message.hook, fallback: message.fallback };
        plugin = undefined;
      } else if (message.type === 'tap') {
        plugin = message.plugin;
      } else if (message.type === 'done') {
        ended = true;
        resolvePromise(message.outcome);
      } else {
        ended = true;
        log.error('hook failed on its bus thread; the agent proceeds undecided', { error: message.error });
        resolvePromise(SILENT);
      }
    });
    worker.on('error', (error) => {
      ended = true;
      log.error('hook bus thread failed; the agent proceeds undecided', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      resolvePromise(SILENT);
    });
    worker.on('exit', () => {
      // A thread that exits without an outcome ran out of work: a tap's promise will never settle.
      if (ended) return;
      const stopped = record('never-settled');
      resolvePromise({ ...SILENT, ...(stopped.marker ? { marker: stopped.marker } : {}) });
    });
  });
  return {
    result,
    async stop() {
      if (ended) return { phase: 'writing' };
      ended = true;
      await worker.terminate().catch(() => undefined);
      return record('stopped');
    },
  };
}

/**
 * The bus thread's body (run by {@link startBusThread}'s worker): loads the host and its
 * plugins, handles the job's payload, and reports each step to the main thread: each tool
 * hook's fallback marker before its taps run, the plugin of each tap as it starts, and the
 * outcome. Never throws.
 */
export async function runBusWorker(): Promise<void> {
  const { parentPort, workerData } = workerThreads();
  if (!parentPort) return;
  const job = workerData as BusJob;
  // Plugins run here as they would on the main thread: same argv (not `[worker eval]`).
  if (job.argv) process.argv.splice(0, process.argv.length, ...job.argv);
  const env = process.env;
  const log = createFileLogger(resolvePaths(env).dataDir, 'hook', env);
  const post = (message: BusMessage): void => parentPort.postMessage(message);
  try {
    const host = await loadHostDirect(env, job.agent !== undefined ? { agent: job.agent } : {});
    for (const hook of ['beforeToolCall', 'afterToolCall'] as const) {
      // A `tap` interceptor runs right before each tap's function: the main thread learns whose code runs.
      (host.hooks[hook] as unknown as { intercept(i: object): void }).intercept({ tap: (tap: { plugin?: string; name: string }) => post({ type: 'tap', hook, plugin: tap.plugin ?? 'unknown', tap: tap.name }) });
    }
    const progress = (step: HandleStep): void => {
      if (step.kind === 'write') Atomics.store(job.writing, 0, 1);
      else post({ type: 'taps', hook: step.hook, fallback: step.fallback });
    };
    const outcome = await handleHookPayload(job.payload, { host, ...(job.agent !== undefined ? { agent: job.agent } : {}), env, ...(job.parentPid !== undefined ? { parentPid: job.parentPid } : {}), ...(job.oversized ? { oversized: job.oversized } : {}), log, progress });
    post({ type: 'done', outcome: { stdout: outcome.stdout, stderr: outcome.stderr, exitCode: outcome.exitCode, ...(outcome.marker ? { marker: outcome.marker } : {}) } });
  } catch (error) {
    post({ type: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
}
