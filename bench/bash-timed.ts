import { spawnSync } from 'node:child_process';

/** Wall and CPU (user + sys of the timed command and its children) of one run, ms. */
export interface BashTimed {
  wallMs: number;
  cpuMs: number;
  /** The timed command's exit status. */
  status: number;
  /** bash's own stderr (the timed command's, unless `body` redirects it). */
  stderr: string;
}

/** `0m0.047s` (bash `times`) → 47. */
function seconds(field: string): number {
  const m = /^(\d+)m([\d.]+)s$/.exec(field);
  if (!m) throw new Error(`unexpected \`times\` field ${field}`);
  return (Number(m[1]) * 60 + Number(m[2])) * 1000;
}

/** The CPU ms of a `times` line pair's second line (the shell's children: user + sys). */
function childrenMs(line: string | undefined): number {
  const [user, sys] = (line ?? '').trim().split(/\s+/);
  return seconds(user!) + seconds(sys!);
}

/**
 * Runs `body` (bash code that starts the command to time, e.g. `"$@" >/dev/null 2>&1`) in a fresh
 * bash with `args` as "$@", after `prelude` (untimed setup, e.g. reading stdin into a variable),
 * and returns its wall time ($EPOCHREALTIME around it) and the CPU of what it started (bash
 * `times`' children line after, minus the same line before). Neither includes this process.
 *
 * The line before matters: a bash started by Node from a background job here already reports
 * several hundred ms of children's CPU before it has run anything, which a single `times` after
 * the command would add to every row.
 */
export function bashTimed(body: string, args: readonly string[], options: { env: NodeJS.ProcessEnv; cwd?: string; prelude?: string }): BashTimed {
  const script = `${options.prelude ? `${options.prelude}; ` : ''}times; s=$EPOCHREALTIME; ${body}; rc=$?; e=$EPOCHREALTIME; echo "wall $s $e rc $rc"; times`;
  const r = spawnSync('/bin/bash', ['-c', script, 'bench', ...args], { env: options.env, cwd: options.cwd, encoding: 'utf8' });
  const lines = r.stdout.trim().split('\n');
  const wall = /^wall ([\d.]+) ([\d.]+) rc (\d+)$/.exec(lines[2] ?? '');
  if (!wall) throw new Error(`bash did not time ${JSON.stringify(body)} (exit ${r.status}): ${r.stderr}`);
  return {
    wallMs: (Number(wall[2]) - Number(wall[1])) * 1000,
    cpuMs: childrenMs(lines[4]) - childrenMs(lines[1]),
    status: Number(wall[3]),
    stderr: r.stderr,
  };
}
