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
