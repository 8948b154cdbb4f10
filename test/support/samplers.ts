import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, type ProcessIdentity } from '../../packages/host/src/telemetry/sampler/identity.js';

const LOCK_PREFIX = 'sampler.lock.';
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Ends every session sampler whose lock file lies under `root` (at most `depth` directories down)
 * and waits, up to `waitMs`, until each is gone. A hook run by a test starts a detached sampler
 * that keeps writing into the sandbox; removing the sandbox while it writes fails with ENOTEMPTY.
 * Owners are identified by pid and start time, so a recycled pid is never signalled.
 */
export function stopSamplersUnder(root: string, depth = 6, waitMs = 5_000): void {
  const owners: ProcessIdentity[] = [];
  collect(root, depth, owners);
  for (const owner of owners) {
    try {
      process.kill(owner.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + waitMs;
  while (owners.some(isAlive) && Date.now() < deadline) Atomics.wait(sleeper, 0, 0, 20);
}

function collect(dir: string, depth: number, out: ProcessIdentity[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (depth > 0) collect(join(dir, entry.name), depth - 1, out);
    } else if (entry.isFile() && entry.name.startsWith(LOCK_PREFIX)) {
      const owner = readOwner(join(dir, entry.name));
      if (owner && isAlive(owner)) out.push(owner);
    }
  }
}

function readOwner(file: string): ProcessIdentity | undefined {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as ProcessIdentity;
    return Number.isInteger(owner.pid) && owner.pid > 0 ? { pid: owner.pid, start: owner.start } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ends every process whose environment names `dataDir` as its `CORDON_DATA_DIR` (a cordon a test
 * started with the sandbox's environment and left running: `cordon top` in a tmux window whose
 * server was told to end, a hook still writing), and waits, up to `waitMs`, until each is gone.
 * Such a process writes into the sandbox (code caches at exit, logs) while it is removed, which
 * fails with ENOTEMPTY. Linux only (`/proc/<pid>/environ`); elsewhere nothing is done.
 */
export function stopProcessesOf(dataDir: string, waitMs = 5_000): void {
  if (process.platform !== 'linux') return;
  const wanted = `CORDON_DATA_DIR=${dataDir}`;
  const found: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${name}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    if (!environ.split('\0').includes(wanted)) continue;
    try {
      process.kill(Number(name), 'SIGKILL');
      found.push(Number(name));
    } catch {
      // already gone
    }
  }
  const gone = (pid: number) => {
    try {
      process.kill(pid, 0);
      return readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ').at(-1)?.startsWith('Z') === true;
    } catch {
      return true;
    }
  };
  const deadline = Date.now() + waitMs;
  while (found.some((pid) => !gone(pid)) && Date.now() < deadline) Atomics.wait(sleeper, 0, 0, 20);
}
