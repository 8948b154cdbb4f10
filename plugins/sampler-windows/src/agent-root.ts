import type { ProcessRecord } from './process-table.js';

/**
 * Image names of the shells agents run hook commands through on Windows, lower case: Claude Code
 * runs them with Git Bash (`bash.exe`, `sh.exe`) or PowerShell, Codex and Gemini CLI through
 * `cmd.exe` or PowerShell (the agent hook docs (docs/references.md) the agents' Windows docs).
 */
export const WINDOWS_SHELLS: ReadonlySet<string> = new Set(['cmd.exe', 'powershell.exe', 'pwsh.exe', 'bash.exe', 'sh.exe', 'dash.exe', 'zsh.exe']);

/** How many shells {@link stepPastShells} steps over at most (as the Linux walk: 8 levels). */
const MAX_DEPTH = 8;

/**
 * The process to sample for a hook whose parent is `pid`: on Windows a hook runs under a shell the
 * agent started for it, and that shell exits with the hook, so the tree to measure is the first
 * ancestor that is not a shell. Walks `InheritedFromUniqueProcessId` upward from `pid` over
 * shells (by `imageName`, case-insensitive), trusting a parent link only while the parent's pid
 * names a process created no later than the child (Windows reuses pids and never updates the
 * link). Returns `pid` itself when it is not a shell, the first non-shell ancestor otherwise, and
 * `pid` when the chain breaks before one (a parent gone or reused, more than 8 shells): sampling
 * the shell is then the best that is known.
 * @param table one process table with image names (`parseProcessTable(…, { imageNames: true })`).
 */
export function stepPastShells(table: readonly ProcessRecord[], pid: number): number {
  const byPid = new Map(table.map((p) => [p.pid, p]));
  let proc = byPid.get(pid);
  for (let depth = 0; proc && depth <= MAX_DEPTH; depth++) {
    if (!isShell(proc)) return proc.pid;
    const parent = byPid.get(proc.ppid);
    if (!parent || parent.pid === 0 || parent.createTime > proc.createTime) return pid;
    proc = parent;
  }
  return pid;
}

/** True when the record's image name is one of {@link WINDOWS_SHELLS}. */
export function isShell(proc: Pick<ProcessRecord, 'imageName'>): boolean {
  return proc.imageName !== undefined && WINDOWS_SHELLS.has(proc.imageName.toLowerCase());
}
