import { chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

// The plugin cannot import the host's io layer (plugins see host code only through services), so
// the two writes the proxy needs are here: an owner-only directory and create-new owner-only files.

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** What a refused directory is to the user, and how else to choose it, for {@link privateDir}'s message. */
export interface DirectoryRole {
  /** `the runtime directory`, `PCODX_LIVE_CONTEXT_DIR`: said before the path. */
  readonly what: string;
  /** The other way out: `set CORDON_RUNTIME_DIR to another directory`. */
  readonly elsewhere: string;
}

/** `path` for a POSIX shell: bare when it holds only plain characters, else single-quoted. */
function shellPath(path: string): string {
  return /^[\w./+-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}

/**
 * Makes `dir` an owner-only directory: created 0700 (chmod after mkdir, so the umask cannot widen
 * it). An existing directory must be a real directory (not a link) owned by this user with no
 * group or other bits, else this throws: an audit directory others can read or plant files in is
 * refused rather than used. The message names the directory (as `role.what`), the mode found, the
 * mode required, the `chmod` that fixes it and `role.elsewhere`, the variable or flag that picks
 * another directory.
 */
export function privateDir(dir: string, role?: DirectoryRole): string {
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined) chmodSync(dir, 0o700);
  const stat = lstatSync(dir);
  const named = role ? `${role.what} ${dir}` : dir;
  const orElse = role ? `; ${role.elsewhere}` : '';
  if (!stat.isDirectory()) throw new Error(`${named} is not a directory${orElse}`);
  if (process.getuid && stat.uid !== process.getuid()) throw new Error(`${named} belongs to another user${orElse}`);
  if ((stat.mode & 0o077) !== 0) {
    const mode = (stat.mode & 0o777).toString(8);
    throw new Error(`${named} is open to group or others (mode ${mode}); it must be owner-only (mode 700): run \`chmod 700 ${shellPath(dir)}\`${role ? `, or ${role.elsewhere}` : ''}`);
  }
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
    privateDir(root, { what: 'PCODX_WS_FIXTURE_DIR', elsewhere: 'set PCODX_WS_FIXTURE_DIR to another directory' });
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
