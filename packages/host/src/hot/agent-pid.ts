import { closeSync, openSync, readlinkSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import type { Dialect, ProcessInfo } from '@cordon/plugin-api';

/** Launchers between an agent and its hook that are never the agent (the agent hook docs; docs/references.md, finding the agent pid). */
const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'fish', 'ksh', 'mksh', 'busybox', 'env', 'timeout', 'nice', 'nohup', 'setsid', 'stdbuf', 'script']);

/** How far up the walk goes: observed depths are 1 (Codex, Gemini, Hermes) and 2 (Claude via dash). */
const MAX_DEPTH = 8;

/** One read of a small `/proc` file per buffer fill; a stat line or a command line rarely needs two. */
const CHUNK = 4096;
let scratch: Buffer | undefined;

/**
 * A whole `/proc/<pid>/<file>` in as few reads as it takes (open, read, close: `readFileSync`
 * adds an fstat and a read that only finds the end). Throws what `openSync` throws.
 */
function readProcFile(pid: number, file: string, encoding: 'latin1' | 'utf8'): string {
  const buf = (scratch ??= Buffer.allocUnsafe(CHUNK));
  const fd = openSync(`/proc/${pid}/${file}`, 'r');
  try {
    let n = readSync(fd, buf, 0, CHUNK, null);
    if (n < CHUNK) return buf.toString(encoding, 0, n);
    const chunks = [Buffer.from(buf.subarray(0, n))];
    while ((n = readSync(fd, buf, 0, CHUNK, null)) > 0) chunks.push(Buffer.from(buf.subarray(0, n)));
    return Buffer.concat(chunks).toString(encoding);
  } finally {
    closeSync(fd);
  }
}

/** `comm` and parent pid from `/proc/<pid>/stat`; `undefined` when it is gone or unreadable. */
function readStat(pid: number): { comm: string; ppid: number } | undefined {
  try {
    const stat = readProcFile(pid, 'stat', 'latin1');
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so split at the last `)`.
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    if (open < 0 || close < open) return undefined;
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    return { comm: stat.slice(open + 1, close), ppid: Number.isFinite(ppid) ? ppid : 0 };
  } catch {
    return undefined;
  }
}

/** Reads one process from `/proc` (Linux); `undefined` when it is gone or unreadable. */
export function readProc(pid: number): ProcessInfo | undefined {
  const stat = readStat(pid);
  return stat && withDetails(pid, stat);
}

/** Adds the command line and executable to what `stat` gave. */
function withDetails(pid: number, { comm, ppid }: { comm: string; ppid: number }): ProcessInfo {
  let argv: string[] = [];
  try {
    argv = readProcFile(pid, 'cmdline', 'utf8').split('\0').filter((a) => a !== '');
  } catch {
    // Unreadable (another user's process): comm alone must do.
  }
  let exe: string | undefined;
  try {
    exe = readlinkSync(`/proc/${pid}/exe`);
  } catch {
    exe = undefined;
  }
  return { pid, ppid, comm, exe, argv };
}

/** True for shells and launchers the walk steps past (login shells show as `-bash`). */
export function isShell(proc: ProcessInfo): boolean {
  const name = (s: string | undefined) => (s ? basename(s).replace(/^-/, '') : '');
  return SHELLS.has(name(proc.comm)) || SHELLS.has(name(proc.exe)) || (proc.argv.length > 0 && SHELLS.has(name(proc.argv[0])));
}

/**
 * The agent's pid for a hook process (the agent hook docs; docs/references.md, finding the agent pid):
 * 1. the dialect's pid variable (`CLAUDE_PID`) when it holds a positive integer;
 * 2. on Linux, the walk from the parent upward through `/proc`, stepping past shells, to the first
 *    process the dialect recognises (`isAgentProcess`), at most 8 levels;
 * 3. else the first ancestor that is not a shell (on other platforms: the parent).
 * Never throws; `undefined` when nothing is found.
 */
export function findAgentPid(dialect: Pick<Dialect, 'agentPidEnv' | 'isAgentProcess'>, env: Readonly<Record<string, string | undefined>>, parent: number = process.ppid): number | undefined {
  if (dialect.agentPidEnv) {
    const named = Number(env[dialect.agentPidEnv]);
    if (Number.isInteger(named) && named > 0) return named;
  }
  if (process.platform !== 'linux') return parent > 1 ? parent : undefined;
  let fallback: number | undefined;
  let pid = parent;
  for (let depth = 0; depth < MAX_DEPTH && pid > 1; depth++) {
    const stat = readStat(pid);
    if (!stat) break;
    // A shell by its comm is a shell whatever its command line says: its details are not read.
    if (SHELLS.has(stat.comm.replace(/^-/, ''))) {
      pid = stat.ppid;
      continue;
    }
    const proc = withDetails(pid, stat);
    if (!isShell(proc)) {
      try {
        if (dialect.isAgentProcess(proc)) return proc.pid;
      } catch {
        // A dialect bug must not break the hook.
      }
      fallback ??= proc.pid;
    }
    pid = proc.ppid;
  }
  return fallback;
}
