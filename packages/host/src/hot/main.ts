import type { Readable } from 'node:stream';
import { hotTapPackages, loadHostDirect, planHostLoad } from '../bus/load-host.js';
import { samplerAfterMarker } from '../telemetry/sampler/hook.js';
import { createFileLogger } from '../util/log.js';
import { resolvePaths } from '../util/paths.js';
import { mark } from '../util/timeline.js';
import { parseHookArgs } from './args.js';
import { startBusThread, type BusThread } from './bus-thread.js';
import { handleHookPayload, type HookOutcome } from './handle.js';
import { readPayload, readPayloadFd, STDIN_DEFAULTS } from './stdin.js';

/** Default bound on one whole hook invocation, ms (`CORDON_HOOK_TIMEOUT_MS`); agents are configured with 30 s. */
export const HOOK_TIMEOUT_MS = 10_000;

export { runBusWorker } from './bus-thread.js';

/** What the hook process prints and exits with. */
export type HookExit = Pick<HookOutcome, 'stdout' | 'stderr' | 'exitCode'>;

const SILENT: HookExit = Object.freeze({ stdout: '', stderr: '', exitCode: 0 });

/** True when `CORDON_DISABLE` is set to anything but `''`, `0` or `false`. */
export function hookDisabled(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = env.CORDON_DISABLE;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/**
 * One `cordon hook` invocation as a library call: reads the payload from `stdin` (a stream, or
 * the process's descriptor 0 read directly; bounded in time
 * and size), loads the host and its plugins without oclif, and handles the payload. Returns what
 * to print and the exit code; never rejects. Everything that goes wrong is logged to
 * `<data>/logs/cordon.log` (nowhere, when cordon's directories are refused: util/paths.ts) and
 * yields exit 0 with empty stdout, so the agent is never broken
 * (docs/ARCHITECTURE.md "The hot paths"; the agent hook docs: exit 2 blocks a call). `CORDON_DISABLE=1` makes it a no-op
 * that does not even read stdin. Bounds: `CORDON_HOOK_STDIN_TIMEOUT_MS` (default 3,000),
 * `CORDON_HOOK_MAX_STDIN_BYTES` (64 MiB), `CORDON_HOOK_TIMEOUT_MS` (10,000) for the whole run.
 *
 * When plugins run code in the hot hooks (per the plugin index, a package tapping
 * `beforeToolCall`/`afterToolCall` or one that failed to load), or there is no current index
 * (nothing is known of what loading the plugins runs), the plugins are loaded and the payload
 * handled on a worker thread
 * (`bus-thread.ts`), so that the bound holds even over a tap, or a register module, that never yields: at the bound
 * the thread is stopped, the call's marker is written with `plugin_failure` naming the plugin,
 * and the hook exits 0. Otherwise everything runs on the main thread, as it
 * also does with `CORDON_HOOK_THREAD=off` (faster; a tap that never yields then defeats the bound).
 */
export async function runHook(argv: readonly string[], io: { stdin: (Readable & { isTTY?: boolean }) | number; env: NodeJS.ProcessEnv; parentPid?: number }): Promise<HookExit> {
  const { env } = io;
  if (hookDisabled(env)) return SILENT;
  let paths: ReturnType<typeof resolvePaths>;
  try {
    paths = resolvePaths(env);
  } catch {
    // A relative CORDON_*_DIR (util/paths.ts): no directory to log in, and commands say why.
    return SILENT;
  }
  const log = createFileLogger(paths.dataDir, 'hook', env);
  const args = parseHookArgs(argv);
  if (args.unknown.length) log.warn('hook arguments ignored', { unknown: args.unknown });
  let thread: BusThread | undefined;
  const work = async (): Promise<HookExit> => {
    const bounds = {
      timeoutMs: positive(env.CORDON_HOOK_STDIN_TIMEOUT_MS, STDIN_DEFAULTS.timeoutMs),
      maxBytes: positive(env.CORDON_HOOK_MAX_STDIN_BYTES, STDIN_DEFAULTS.maxBytes),
    };
    const { stdin } = io;
    const read = await (typeof stdin === 'number' ? readPayloadFd(stdin, () => process.stdin, bounds) : readPayload(stdin, bounds));
    mark('payload read');
    if (!read.ok) {
      log.warn('hook payload unusable', { problem: read.problem, bytes: read.bytes, detail: read.detail, agent: args.agent });
      return SILENT;
    }
    // Never stdout or stderr: the agent reads those.
    if (read.ignoredBytes) log.warn('hook payload: bytes after its JSON document ignored', { ignoredBytes: read.ignoredBytes, bytes: read.bytes, agent: args.agent });
    const oversized = read.oversized ? { ...read.oversized, bytes: read.bytes } : undefined;
    if (oversized) log.info('hook payload over the size limit read in its reduced form', { bytes: read.bytes, cuts: oversized.cuts.length, cutEverywhere: oversized.cutEverywhere, agent: args.agent });
    const plan = planHostLoad(env);
    const hot = hotTapPackages(plan);
    const threaded = env.CORDON_HOOK_THREAD !== 'off';
    const onThread = async (): Promise<HookExit> => {
      thread = await startBusThread({ payload: read.payload, ...(oversized ? { oversized } : {}), ...(args.agent !== undefined ? { agent: args.agent } : {}), parentPid: io.parentPid ?? process.ppid }, env, paths.dataDir, log);
      const outcome = await thread.result;
      thread = undefined;
      if (outcome.marker) samplerAfterMarker(paths.dataDir, outcome.marker, log, env);
      return { stdout: outcome.stdout, stderr: outcome.stderr, exitCode: outcome.exitCode };
    };
    // Without a current index (the first call after a plugin is installed, linked or rebuilt; every
    // call under CORDON_PLUGIN_INDEX=off) nothing is known of the plugins' code, whose load runs
    // it: a register module that loops at load held the main thread, and with it the hook, past
    // the bound, for ever (the index it would have written never was). The load goes to the thread.
    if (threaded && (hot === undefined ? plan.packages.length > 0 : hot.length > 0)) return onThread();
    const host = await loadHostDirect(env, { agent: args.agent, plan });
    mark('plugins loaded');
    const outcome = await handleHookPayload(read.payload, { host, agent: args.agent, env, parentPid: io.parentPid, log, ...(oversized ? { oversized } : {}) });
    mark('payload handled');
    // Session/tool start: make sure the session's sampler runs; session end: STOP (never on a turn end).
    if (outcome.marker) samplerAfterMarker(paths.dataDir, outcome.marker, log, env);
    mark('sampler checked');
    return { stdout: outcome.stdout, stderr: outcome.stderr, exitCode: outcome.exitCode };
  };
  const limit = positive(env.CORDON_HOOK_TIMEOUT_MS, HOOK_TIMEOUT_MS);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HookExit>((resolvePromise) => {
    timer = setTimeout(() => {
      const running = thread;
      thread = undefined;
      if (!running) {
        log.error('hook gave up: time limit reached; the agent proceeds undecided', { limitMs: limit, agent: args.agent });
        resolvePromise(SILENT);
        return;
      }
      // The plugin work runs on its own thread: stop it, whatever it is doing, and record whose tap it was.
      void running.stop().then((stopped) => {
        log.error('hook gave up: time limit reached; the plugin work was stopped and the agent proceeds undecided', { limitMs: limit, agent: args.agent, phase: stopped.phase });
        if (stopped.marker) samplerAfterMarker(paths.dataDir, stopped.marker, log, env);
        resolvePromise(SILENT);
      });
    }, limit);
  });
  try {
    return await Promise.race([work(), timeout]);
  } catch (error) {
    log.error('hook failed; the agent proceeds undecided', { error: error instanceof Error ? (error.stack ?? error.message) : String(error), agent: args.agent });
    return SILENT;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The process entry `bin/run.cjs` calls for `cordon hook …` before anything imports `@oclif/core`:
 * runs {@link runHook} on the real stdin, prints the reply, and exits with its code at once (a
 * stdin that never closed, or a plugin's stray timer, must not keep the agent waiting).
 */
export async function runHookProcess(argv: readonly string[]): Promise<void> {
  mark('bundle loaded');
  let result: HookExit = SILENT;
  try {
    result = await runHook(argv, { stdin: 0, env: process.env });
  } catch {
    result = SILENT;
  }
  const exit = (): void => process.exit(result.exitCode);
  if (result.stderr) process.stderr.write(result.stderr);
  if (result.stdout) process.stdout.write(result.stdout, exit);
  else exit();
}
