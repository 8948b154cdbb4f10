import { readFileSync } from 'node:fs';
import { readKernelUnits } from '../telemetry/sampler/linux/auxv.js';
import { isAlive, readStartTicks } from '../telemetry/sampler/identity.js';

/**
 * How much later than the marker that named it an agent process may have started and still be
 * taken for that agent, ms. The boot time in `/proc/stat` has whole seconds, and the wall clock
 * may have been stepped since boot; a recycled pid starts after the agent died, normally far later.
 */
export const START_SLACK_MS = 5_000;

let bootMs: number | undefined | null = null;
let clockTicks: number | undefined;

/** The boot time from `/proc/stat` (`btime`, seconds since the epoch), ms; `undefined` without it. Read once. */
function bootTimeMs(): number | undefined {
  if (bootMs !== null) return bootMs;
  bootMs = undefined;
  try {
    const match = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'));
    if (match) bootMs = Number(match[1]) * 1000;
  } catch {
    // No /proc: no start times.
  }
  return bootMs;
}

/**
 * When process `pid` started, epoch ms (Linux: `starttime`, field 22 of `/proc/<pid>/stat`, in
 * clock ticks after boot, plus `btime`; proc(5)); `undefined` when it is gone, a zombie, or this
 * is not Linux.
 */
export function processStartMs(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  const ticks = readStartTicks(pid);
  const boot = bootTimeMs();
  if (ticks === undefined || boot === undefined) return undefined;
  clockTicks ??= readKernelUnits().clockTicks;
  return boot + (ticks / clockTicks) * 1000;
}

/**
 * Whether the agent a marker named (`agent_pid`, written at `namedAt`) still runs, without
 * touching it: on Linux its `/proc/<pid>/stat` is read, and a process that started more than
 * {@link START_SLACK_MS} after the marker named the pid is another process that got the pid
 * after the agent died (pids are recycled). Elsewhere the existence probe of `kill(pid, 0)`,
 * which delivers no signal (POSIX `kill`: "error checking is performed but no signal is
 * actually sent"), decides.
 */
export function agentAlive(pid: number, namedAt: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (process.platform !== 'linux') return isAlive({ pid });
  const started = processStartMs(pid);
  return started !== undefined && started <= namedAt + START_SLACK_MS;
}
