import { closeSync, openSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** GNU time, which reports a process's user and system CPU time and its peak RSS. */
export const TIME = '/usr/bin/time';

/** One timed process: wall, CPU (user + sys) in ms, peak RSS in MiB. */
export interface Run {
  wallMs: number;
  cpuMs: number;
  rssMiB: number;
}

/** The median of `xs` (the mean of the two middle values for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/**
 * Runs `argv` once under {@link TIME}, its stdout written to the file `out` (its stderr piped),
 * and returns the run with what it printed. Throws naming `name` when it exits non-zero.
 */
export function timedRun(name: string, argv: readonly string[], options: { env: NodeJS.ProcessEnv; cwd?: string; out: string }): { run: Run; output: Buffer } {
  const timeFile = `${options.out}.time`;
  const fd = openSync(options.out, 'w');
  const started = process.hrtime.bigint();
  let r;
  try {
    r = spawnSync(TIME, ['-f', '%U %S %M', '-o', timeFile, ...argv], { env: options.env, cwd: options.cwd, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
  } finally {
    closeSync(fd);
  }
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const output = readFileSync(options.out);
  if (r.status !== 0) throw new Error(`${name} failed (${r.status}): ${r.stderr}\n${output.toString('utf8').slice(0, 2000)}`);
  const [user, sys, rssKiB] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  return { run: { wallMs, cpuMs: (user! + sys!) * 1000, rssMiB: rssKiB! / 1024 }, output };
}
