/**
 * Entry of the detached sampler process spawned by `ensureSampler()` (ensure.ts):
 * `node run.js --dir <session dir> --pid <root pid> --interval <ms> --idle <ms> --generation <n> [--data <data dir>] [--root-start <starttime>] [--since <epoch ms>]`.
 * Not a `cordon` command: it is started by the hot path, which never loads oclif.
 */
import { appendLine } from '../../io/append.js';
import { writeFileAtomic } from '../../io/atomic-write.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadHostDirect } from '../../bus/load-host.js';
import { resolvePaths } from '../../util/paths.js';
import { createFileLogger } from '../../util/log.js';
import { pickSampler } from './builtin.js';
import { DEFAULT_IDLE_MS, DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS } from './config.js';
import { SAMPLER_FILES } from './files.js';
import { identify, isAlive } from './identity.js';
import { readLockOwner, recordLockOwner } from './lock.js';
import { runSamplerLoop, type StopReason } from './loop.js';

/**
 * One line of `sampler.jsonl`. `t` is epoch milliseconds, like markers and samples. `named_pid`: the pid the hook named when the sampler measures another (on Windows the shell the hook ran under; `root_pid` is then the agent above it).
 * `since` (start): when sampling was asked for (the wrapped command's spawn, the starting hook's marker), where `cordon reduce` starts the span.
 */
export type SamplerEvent =
  | { event: 'start'; t: number; pid: number; generation: number; root_pid: number; named_pid?: number; interval_ms: number; idle_ms: number; sampler: string; since?: number }
  | { event: 'stop'; t: number; pid: number; generation: number; reason: StopReason | 'unsupported' | 'lock-lost'; ticks?: number; errors?: number; skipped?: number; tick_median_ms?: number; tick_p95_ms?: number; tick_max_ms?: number; self_cpu_pct?: number; self_cpu_ms?: number };

/** Runs one sampler process to completion. Exported for tests; `main` below calls it. */
export async function runSamplerProcess(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<StopReason | 'unsupported' | 'lock-lost'> {
  const { values } = parseArgs({
    args: [...argv],
    options: { dir: { type: 'string' }, pid: { type: 'string' }, interval: { type: 'string' }, idle: { type: 'string' }, generation: { type: 'string' }, data: { type: 'string' }, 'root-start': { type: 'string' }, since: { type: 'string' } },
    strict: true,
  });
  const dir = values.dir!;
  let rootPid = Number(values.pid);
  const namedPid = rootPid;
  const intervalMs = Math.max(MIN_INTERVAL_MS, Number(values.interval) || DEFAULT_INTERVAL_MS);
  const idleMs = Number(values.idle) || DEFAULT_IDLE_MS;
  const generation = Number(values.generation) || 1;
  const since = values.since === undefined ? undefined : Number(values.since);
  const dataDir = values.data ?? resolvePaths(env).dataDir;
  const hostEnv: NodeJS.ProcessEnv = { ...env, CORDON_DATA_DIR: dataDir };
  const log = createFileLogger(dataDir, 'sampler', env);
  const event = (e: SamplerEvent): void => appendLine(join(dir, SAMPLER_FILES.events), JSON.stringify(e) + '\n');
  const now = (): number => Date.now();

  // Claim the generation the hook won for us; step aside if a live sampler already holds it.
  const held = readLockOwner(dir, generation);
  if (held && held.pid !== process.pid && held.role === 'sampler' && isAlive(held)) {
    log.warn('lock generation held by another sampler', { dir, generation, holder: held.pid });
    event({ event: 'stop', t: now(), pid: process.pid, generation, reason: 'lock-lost' });
    return 'lock-lost';
  }
  recordLockOwner(dir, { ...(identify(process.pid) ?? { pid: process.pid }), role: 'sampler', generation, at: Date.now() });

  // Only the plugins that register samplers (the plugin index knows them): a lighter start-up
  // leaves the long-running sampler a smaller heap to collect.
  const host = await loadHostDirect(hostEnv, { needs: { samplers: true } });
  const entry = pickSampler(host.samplers, process.platform, env.CORDON_SAMPLER);
  if (!entry) {
    writeFileAtomic(join(dir, SAMPLER_FILES.unsupported), JSON.stringify({ platform: process.platform, wanted: env.CORDON_SAMPLER ?? null }) + '\n', { mode: 0o600, links: 'replace', durable: false });
    log.warn('no sampler for this platform', { platform: process.platform, wanted: env.CORDON_SAMPLER });
    event({ event: 'stop', t: now(), pid: process.pid, generation, reason: 'unsupported' });
    return 'unsupported';
  }

  let signalled = false;
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => (signalled = true));
  let reader;
  try {
    const rootStart = values['root-start'] === undefined ? undefined : Number(values['root-start']);
    if (rootStart !== undefined && !isAlive({ pid: rootPid, start: rootStart })) throw new Error(`process ${rootPid} is no longer the one the hook named`);
    const sampler = await entry.load();
    // The hook may have named the shell it ran under (Windows); the sampler knows better.
    if (sampler.agentRoot) rootPid = await sampler.agentRoot(rootPid);
    reader = await sampler.open(rootPid);
  } catch (error) {
    log.info('root process gone before the first tick', { dir, rootPid, error: String(error) });
    event({ event: 'stop', t: now(), pid: process.pid, generation, reason: 'agent-exit', ticks: 0 });
    return 'agent-exit';
  }
  event({ event: 'start', t: now(), pid: process.pid, generation, root_pid: rootPid, ...(namedPid === rootPid ? {} : { named_pid: namedPid }), interval_ms: intervalMs, idle_ms: idleMs, sampler: entry.name, ...(since !== undefined && Number.isFinite(since) ? { since } : {}) });
  log.debug('sampler started', { dir, rootPid, generation, sampler: entry.name });
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const { reason, stats } = await runSamplerLoop({ dir, reader, intervalMs, idleMs, generation, stopRequested: () => signalled });
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - wallBefore;
  reader.close();
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  event({
    event: 'stop',
    t: now(),
    pid: process.pid,
    generation,
    reason,
    ticks: stats.ticks,
    errors: stats.errors,
    skipped: stats.skipped,
    tick_median_ms: round(stats.medianMs),
    tick_p95_ms: round(stats.p95Ms),
    tick_max_ms: round(stats.maxMs),
    self_cpu_pct: wallMs > 0 ? round(((cpu.user + cpu.system) / 1000 / wallMs) * 100) : 0,
    // The sampler's own CPU, user + system, ms: cordon's measured cost (`cordon analyze`'s AgentSight overhead row).
    self_cpu_ms: round((cpu.user + cpu.system) / 1000),
  });
  log.debug('sampler stopped', { dir, reason, ...stats });
  return reason;
}

// Run when executed as a script (not when a test imports it).
if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  // Probing pids that are already gone throws ENOENT many times a minute; stack traces are not
  // needed for those and are most of their cost.
  Error.stackTraceLimit = 0;
  runSamplerProcess(process.argv.slice(2)).then(
    () => process.exit(0),
    (error: unknown) => {
      createFileLogger(resolvePaths().dataDir, 'sampler').error('sampler failed', { argv: process.argv.slice(2), error: String((error as Error)?.stack ?? error) });
      process.exit(1);
    },
  );
}
