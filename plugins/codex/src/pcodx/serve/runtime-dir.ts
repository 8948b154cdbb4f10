import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readSettingsText } from '@cordon/plugin-api';
import { privateDir, writeNewPrivate } from './capture.js';
import { procAvailable, procStat, stillRunning, type ProcessId } from './proc.js';
import type { ServeLog } from './relay.js';

/**
 * Where serves keep their sockets, tokens and pid records: `$CORDON_RUNTIME_DIR`, else
 * `$XDG_RUNTIME_DIR/cordon` (the XDG Base Directory specification's per-user runtime directory),
 * else `<tmpdir>/cordon-<uid>`. The directory and its `pcodx-serve` child are owner-only (0700);
 * one owned by someone else or open to others is refused.
 */
export function runtimeRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CORDON_RUNTIME_DIR) return env.CORDON_RUNTIME_DIR;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'cordon');
  return join(tmpdir(), `cordon-${process.getuid?.() ?? 'user'}`);
}

/** What a serve records about itself in `owner.json`, so a later serve can prove what it started. */
export interface OwnerRecord {
  readonly version: 1;
  readonly serve: ProcessId;
  /** The process that stops the app-server when the serve goes (see upstream.ts). */
  watchdog?: ProcessId;
  /** Every process of the app-server's process group once it listened. */
  appServer?: ProcessId[];
}

/** A serve's own owner-only directory `<root>/pcodx-serve/s-XXXXXX`, removed when the serve stops. */
export class ServeDir {
  readonly #record: OwnerRecord;
  #writes = 0;

  private constructor(readonly path: string) {
    const self = procStat(process.pid);
    this.#record = { version: 1, serve: { pid: process.pid, start: self?.start ?? '' } };
    this.#write();
  }

  /** Makes a fresh directory under `root` (see {@link runtimeRoot}); throws when the root is not owner-only. */
  static create(root: string): ServeDir {
    const parent = serveRoot(root);
    return new ServeDir(mkdtempSync(join(parent, 's-')));
  }

  /** A path inside the directory. */
  file(name: string): string {
    return join(this.path, name);
  }

  /** Records the watchdog and the app-server's processes (rewrites `owner.json` atomically). */
  record(update: Partial<Pick<OwnerRecord, 'watchdog' | 'appServer'>>): void {
    Object.assign(this.#record, update);
    this.#write();
  }

  /** Removes the directory and what is in it. */
  remove(): void {
    removeCodexDaemonSocket(this.file(UPSTREAM_SOCKET));
    rmSync(this.path, { recursive: true, force: true });
  }

  #write(): void {
    this.#writes += 1;
    const tmp = this.file(`owner.json.${process.pid}.${this.#writes}`);
    writeNewPrivate(tmp, `${JSON.stringify(this.#record)}\n`);
    renameSync(tmp, this.file('owner.json'));
  }
}

/** Name of the app-server's socket inside a serve directory. */
export const UPSTREAM_SOCKET = 'app-server.sock';

/** How a refused runtime directory is named, and how to pick another ({@link runtimeRoot}). */
const RUNTIME_ROLE = { what: 'the runtime directory', elsewhere: 'set CORDON_RUNTIME_DIR to another directory (one that does not exist yet is created owner-only)' } as const;

/** `<root>/pcodx-serve`, made owner-only. */
function serveRoot(root: string): string {
  privateDir(root, RUNTIME_ROLE);
  return privateDir(join(root, 'pcodx-serve'), RUNTIME_ROLE);
}

/** A directory younger than this without `owner.json` may belong to a serve still starting. */
const UNRECORDED_GRACE_MS = 60_000;

/**
 * Cleans up after serves that ended without doing so (SIGKILL of both the serve and its
 * watchdog, a power cut): for each directory under `<root>/pcodx-serve` whose serve no longer runs
 * (pid and start time, so a reused pid does not count), stops the processes it recorded that are
 * still the same processes (SIGTERM, SIGKILL after 3 s), then removes the directory. Processes it
 * cannot prove it started are never signalled; without /proc nothing is signalled and only
 * directories of serves whose pid is gone are removed. Returns the number of directories removed.
 */
export async function cleanStaleServes(root: string, log: ServeLog): Promise<number> {
  const parent = serveRoot(root);
  const proc = procAvailable();
  let removed = 0;
  for (const name of readdirSync(parent)) {
    if (!name.startsWith('s-')) continue;
    const dir = join(parent, name);
    let record: OwnerRecord | undefined;
    try {
      // A FIFO here would hold serve's start-up until something wrote to it.
      record = JSON.parse(readSettingsText(join(dir, 'owner.json')) ?? 'null') as OwnerRecord | undefined;
    } catch {
      record = undefined;
    }
    if (!record?.serve) {
      let age = 0;
      try {
        age = Date.now() - statSync(dir).mtimeMs;
      } catch {
        continue;
      }
      if (age < UNRECORDED_GRACE_MS) continue;
    } else if (proc ? stillRunning(record.serve) : pidExists(record.serve.pid)) {
      continue;
    }
    const orphans = proc && record ? [record.watchdog, ...(record.appServer ?? [])].filter((p): p is ProcessId => p !== undefined && stillRunning(p)) : [];
    if (orphans.length) await stopProcesses(orphans);
    removeCodexDaemonSocket(join(dir, UPSTREAM_SOCKET));
    rmSync(dir, { recursive: true, force: true });
    removed += 1;
    log('stale_serve_cleaned', { dir, stopped_processes: orphans.length });
  }
  return removed;
}

/** SIGTERM each process (a group leader: its group), SIGKILL those still the same process after 3 s; resolves when all are gone. */
async function stopProcesses(ids: readonly ProcessId[]): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    for (const id of ids) {
      const stat = procStat(id.pid);
      if (stat?.start !== id.start) continue;
      try {
        // A proven group leader takes its whole group (children it started after it was recorded).
        process.kill(stat.pgid === id.pid ? -id.pid : id.pid, sig);
      } catch {
        // Gone in between.
      }
    }
  };
  signal('SIGTERM');
  const killAt = Date.now() + 3000;
  let killed = false;
  while (ids.some(stillRunning)) {
    if (!killed && Date.now() > killAt) {
      signal('SIGKILL');
      killed = true;
    }
    if (killed && Date.now() > killAt + 5000) break;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Codex 0.171 binds `--listen unix://PATH` at `/tmp/codex-daemon-<uid>/<sha256 of PATH>` and makes
 * PATH a symlink to it (observed with the pinned binary). An app-server stopped by SIGKILL leaves
 * that socket and its `.lock` behind; they are removed when the link in our directory names exactly
 * the file derived from our own path.
 */
function removeCodexDaemonSocket(link: string): void {
  let target: string;
  try {
    target = readlinkSync(link);
  } catch {
    return;
  }
  const expected = createHash('sha256').update(link).digest('hex');
  if (!target.endsWith(`/${expected}`) || !/\/codex-daemon-\d+$/.test(dirname(target))) return;
  for (const path of [target, `${target}.lock`]) {
    try {
      unlinkSync(path);
    } catch {
      // Already gone (the app-server removes both when it stops cleanly).
    }
  }
}

/** Makes `dir` (and parents) for a user-chosen unix socket: the directory holding it must be owner-only. */
export function socketParent(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  privateDir(dirname(path), { what: "the --listen socket's directory", elsewhere: 'give --listen unix:///PATH a path in an owner-only directory' });
}
