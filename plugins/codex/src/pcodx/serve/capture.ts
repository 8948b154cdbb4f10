import { chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

// The plugin cannot import the host's io layer (plugins see host code only through services), so
// the two writes the proxy needs are here: an owner-only directory and create-new owner-only files.

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Makes `dir` an owner-only directory: created 0700 (chmod after mkdir, so the umask cannot widen
 * it). An existing directory must be a real directory (not a link) owned by this user with no
 * group or other bits, else this throws: an audit directory others can read or plant files in is
 * refused rather than used.
 */
export function privateDir(dir: string): string {
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined) chmodSync(dir, 0o700);
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (process.getuid && stat.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
  if ((stat.mode & 0o077) !== 0) throw new Error(`${dir} is open to group or others (mode ${(stat.mode & 0o777).toString(8)}); use an owner-only (0700) directory`);
  return dir;
}

/** Writes a new owner-only (0600) file; never overwrites, never follows a link (EEXIST/ELOOP thrown). */
export function writeNewPrivate(path: string, data: string): void {
  const fd = openSync(path, CREATE_NEW, 0o600);
  try {
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

/** Logs a capture failure (the `ServeLog` shape, without importing the relay). */
type CaptureLog = (event: string, fields?: Readonly<Record<string, string | number | boolean>>) => void;

/**
 * `PCODX_WS_FIXTURE_DIR`: every text frame the proxy sees, one JSON file per frame named
 * `<000001>-<direction>.json` (directions `c2p` client→proxy, `p2s` proxy→upstream, `s2p`,
 * `p2c`), for protocol fixtures. Each serve writes into its own new run directory
 * `run-<UTC time>-<pid>-<n>` (made with an exclusive mkdir, retried under the next name), each
 * connection into `conn-<n>` inside it, so serves sharing the directory never collide. A capture
 * never stops the proxy: a write that fails is logged once (`capture_failed`) and that
 * connection's capture stops.
 */
export class FrameCapture {
  #n = 0;
  #failed = false;
  private constructor(
    private readonly dir: string,
    private readonly log: CaptureLog,
    private readonly connection: number,
  ) {}

  /** Makes this serve's run directory under `root` (owner-only); throws when `root` is refused. */
  static runDir(root: string): string {
    privateDir(root);
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
    for (let n = 1; ; n++) {
      const dir = join(root, `run-${stamp}-${process.pid}-${n}`);
      try {
        mkdirSync(dir, { mode: 0o700 });
        chmodSync(dir, 0o700);
        return dir;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw error;
      }
    }
  }

  /** The capture of one connection, or undefined (logged) when its directory cannot be made. */
  static forConnection(runDir: string | undefined, connection: number, log: CaptureLog): FrameCapture | undefined {
    if (!runDir) return undefined;
    try {
      return new FrameCapture(privateDir(join(runDir, `conn-${connection}`)), log, connection);
    } catch (error) {
      log('capture_failed', { connection, message: (error as Error).message });
      return undefined;
    }
  }

  frame(direction: 'c2p' | 'p2s' | 's2p' | 'p2c', text: string): void {
    if (this.#failed) return;
    this.#n += 1;
    try {
      writeNewPrivate(join(this.dir, `${String(this.#n).padStart(6, '0')}-${direction}.json`), text.endsWith('\n') ? text : `${text}\n`);
    } catch (error) {
      this.#failed = true;
      this.log('capture_failed', { connection: this.connection, message: (error as Error).message });
    }
  }
}

let liveSeq = 0;

/**
 * `PCODX_LIVE_CONTEXT_DIR`: the exact items injected into a fresh thread, one create-new 0600 JSON
 * file per injection (`live-<epoch ms>-<pid>-<n>.json`) for an audit. Returns the file path.
 */
export function recordLiveContext(dir: string, record: { readonly sessionId: string; readonly clientThreadId: string; readonly upstreamThreadId: string; readonly items: unknown[] }): string {
  liveSeq += 1;
  const path = join(privateDir(dir), `live-${Date.now()}-${process.pid}-${liveSeq}.json`);
  writeNewPrivate(path, `${JSON.stringify(record, null, 2)}\n`);
  return path;
}
