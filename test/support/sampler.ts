import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep, waitFor as waitForCondition } from './wait.js';

// Helpers for the sampler suites (packages/host/test/telemetry/sampler and test/e2e/sampler):
// what a session directory and /proc say about the per-session sampler.

export { sleep };

/** One line of a session's `sampler.jsonl`. */
export interface SamplerEventLine {
  event: 'start' | 'stop';
  t: number;
  pid: number;
  generation: number;
  reason?: string;
  [key: string]: unknown;
}

/** The sampler lifecycle events written so far in session directory `dir`. */
export function samplerEvents(dir: string): SamplerEventLine[] {
  const path = join(dir, 'sampler.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as SamplerEventLine);
}

/** {@link waitForCondition} (test/support/wait.ts) in the argument order the sampler suites use: polls until `pick()` returns something, or throws naming `what` after `ms`. */
export function waitFor<T>(what: string, pick: () => T | undefined, ms = 30_000): Promise<T> {
  return waitForCondition(pick, { what, timeoutMs: ms });
}

/** Whether `pid` runs (zombies count as gone). */
export function running(pid: number): boolean {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^[ZX]/.test(s.slice(s.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Pids of live sampler processes (`…/telemetry/sampler/run.js --dir <dir>`), found through /proc. */
export function samplerProcesses(dir: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (argv.some((a) => a.endsWith('/telemetry/sampler/run.js')) && argv[argv.indexOf('--dir') + 1] === dir) found.push(Number(name));
    } catch {
      // gone
    }
  }
  return found;
}

/** Lock generations present in a session directory (`sampler.lock.<n>`), sorted. */
export function lockFiles(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.startsWith('sampler.lock.')).sort();
}

/** A stand-in agent: a detached long-running process (its own process group). */
export function fakeAgent(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e6)'], { stdio: 'ignore', detached: true });
}

/** SIGKILLs a process group, ignoring one that is gone. */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone
  }
}
