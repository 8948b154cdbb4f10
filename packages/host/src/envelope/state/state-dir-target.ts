import { lstatSync, readlinkSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { displayName } from '../../output/terminal.js';
import { realPath } from '../../io/real-path.js';
import { urlScheme } from '../../util/url-scheme.js';
import { CORDON_DIR } from './dir-name.js';

/** Links followed before a path is taken as it stands (Linux's own limit, `MAXSYMLINKS`, is 40). */
const MAX_LINKS = 40;

/**
 * Where a write to `path` lands, as the kernel walks it: from the working directory (or `/`),
 * component by component, every symbolic link on the way followed (the last one too: a report
 * replaces a link's target, io/atomic-write.ts) and each `..` taken from the directory reached
 * so far, not from the text (`link/../x` is the link target's parent's `x`). From the first
 * component that does not exist on, the rest is joined as written. Windows: the canonical path
 * of what exists, else the path resolved as text.
 */
export function landingPath(path: string, cwd: string = process.cwd()): string {
  if (process.platform === 'win32') {
    try {
      return realPath(resolve(cwd, path));
    } catch {
      return resolve(cwd, path);
    }
  }
  let dir = isAbsolute(path) ? sep : cwd;
  const queue = path.split(sep);
  let links = 0;
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      dir = dirname(dir);
      continue;
    }
    const next = join(dir, part);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      // Missing (a new file), or not reachable: nothing further to follow.
      return resolve(next, ...queue.filter((p) => p !== ''));
    }
    if (isLink && links++ < MAX_LINKS) {
      let target: string;
      try {
        target = readlinkSync(next);
      } catch {
        return resolve(next, ...queue.filter((p) => p !== ''));
      }
      if (isAbsolute(target)) dir = sep;
      queue.unshift(...target.split(sep));
      continue;
    }
    dir = next;
  }
  return dir;
}

/** True when something (a file, directory or link) exists at `path`. */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The envelope state directory (`<work-tree root>/.cordon`, state/dir-name.ts) that a write to
 * `path` would land in or replace ({@link landingPath}), or undefined. A directory named
 * `.cordon` counts as an envelope's when its parent holds `.git` (a work-tree root) or it holds
 * `state.json` (an armed envelope's), armed or not: a file cordon does not write there makes
 * every envelope command refuse the directory as someone else's (`CORDON_STATE_FOREIGN`).
 */
export function stateDirOfTarget(path: string, cwd?: string): string | undefined {
  for (let at = landingPath(path, cwd); ; at = dirname(at)) {
    if (basename(at) === CORDON_DIR && (present(join(dirname(at), '.git')) || present(join(at, 'state.json')))) return at;
    if (dirname(at) === at) return undefined;
  }
}

/**
 * Why cordon must not write `path`, in the words that follow the input's name in an error (`it is
 * inside /r/.cordon, the envelope's state directory, …; name a file outside .cordon/`), or
 * undefined when the write would land outside every envelope's state directory
 * ({@link stateDirOfTarget}). `-` (standard output) and the empty string are never refused. Lent to
 * plugins as `api.services.files.stateDirProblem` (a pcodx `--context-out`).
 */
export function stateDirProblem(path: string, cwd?: string): { readonly why: string; readonly dir: string } | undefined {
  if (path === '-' || path === '') return undefined;
  const dir = stateDirOfTarget(path, cwd);
  if (dir === undefined) return undefined;
  return {
    dir,
    why: `it is inside ${displayName(dir)}, the envelope's state directory, where cordon keeps only its own files (a file it did not write there stops \`cordon check\`, \`status\` and \`arm\` until it is removed); name a file outside ${CORDON_DIR}/. Nothing was run or written`,
  };
}

/**
 * Why `path` names no file by its spelling alone, in the words that follow the input's name in an
 * error, or undefined: it ends with a separator (`l.db/`: POSIX resolves such a path only to a
 * directory, while Node's `path.resolve` drops the separator and would write `l.db`), or its
 * last part is `.` or `..`. `-` (standard output), the empty string and URLs (`postgres://h/`)
 * are left to the caller.
 */
export function directorySpelling(path: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (path === '-' || path === '' || urlScheme(path) !== undefined) return undefined;
  const separators = platform === 'win32' ? /[\\/]/ : /\//;
  const last = path.at(-1)!;
  if (separators.test(last)) return `ends with "${last}", so it names a directory, not a file; give the file's path without it. Nothing was run or written`;
  const part = path.split(separators).at(-1);
  if (part === '.' || part === '..') return `its last part "${part}" names a directory, not a file; give the file's path. Nothing was run or written`;
  return undefined;
}

/**
 * Refuses a file the user named for cordon to write (a report's `--out`, a telemetry store's
 * `--db`, a pcodx ledger's `--db` or usage log) before anything is run or written, when its
 * spelling names a directory ({@link directorySpelling}: `--db l.db/`) or it would land inside an
 * envelope's state directory ({@link stateDirProblem}): `CORDON_BAD_INPUT` (exit 2), `<flag>
 * <path>: <why>`, `details` `{flag, path}` (and `dir`, the state directory). `named` is how the
 * message names the input: the flag (`--out`), or a variable as `CORDON_DB=`.
 */
export function refuseFileTarget(named: string, path: string, cwd?: string): void {
  const shown = named.endsWith('=') ? `${named}${displayName(path)}` : `${named} ${displayName(path)}`;
  const flag = named.replace(/=$/, '');
  const spelled = directorySpelling(path);
  if (spelled !== undefined) throw new CordonError(ERROR_CODES.BAD_INPUT, `${shown}: ${spelled}`, { details: { flag, path } });
  const problem = stateDirProblem(path, cwd);
  if (problem === undefined) return;
  throw new CordonError(ERROR_CODES.BAD_INPUT, `${shown}: ${problem.why}`, { details: { flag, path, dir: problem.dir } });
}
