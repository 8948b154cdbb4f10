import { lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { pathText } from '../path-text.js';
import { nodeCrypto } from '../../util/builtins.js';

/**
 * Stat fingerprints of ignored entries and submodule work trees, taken at arm and compared at
 * check ("new or changed ignored entries are violations"). A file's fingerprint holds
 * its type, mode, size, mtime, ctime (ns) and inode: the ctime cannot be set back by a process,
 * so rewriting content and restoring the mtime still shows (git's own racy-clean reasoning).
 * A directory's fingerprint is a SHA-256 over the sorted fingerprints of everything below it,
 * directories' own times excluded (they move whenever an allowed file appears).
 */

/** `f:`/`l:`/`o:` + stat fields for one path, `null` when it does not exist. */
export function statPrint(abs: string | Buffer): string | null {
  let st: BigIntStats | undefined;
  try {
    st = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw error;
  }
  return st ? printOf(st) : null;
}

function printOf(st: BigIntStats): string {
  const kind = st.isFile() ? 'f' : st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : 'o';
  if (kind === 'd') return 'd';
  return `${kind}:${st.mode.toString(8)}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`;
}

/**
 * Fingerprint of a directory tree: `dir:<sha256>:<entries>`, or `null` when `abs` is missing.
 * `skip(rel, isDir)` leaves out paths (repo-relative text form, directories without slash)
 * that `--allow-ignored` covers. Symlinks are never followed. Units: none (an opaque string).
 */
export function treePrint(path: string | Buffer, rel: string, skip: (rel: string, isDir: boolean) => boolean = () => false): string | null {
  const abs = typeof path === 'string' ? Buffer.from(path, 'utf8') : path;
  const top = statPrint(abs);
  if (top === null) return null;
  if (top !== 'd') return top;
  const hash = nodeCrypto().createHash('sha256');
  let count = 0;
  const walk = (dirAbs: Buffer, dirRel: string) => {
    const names = readdirSync(dirAbs, { encoding: 'buffer' }).sort(Buffer.compare);
    for (const name of names) {
      const childAbs = Buffer.concat([dirAbs, Buffer.from('/'), name]);
      const childRel = `${dirRel}/${pathText(name)}`;
      let st: BigIntStats;
      try {
        st = lstatSync(childAbs, { bigint: true });
      } catch {
        continue; // vanished while walking; the parent listing already differs
      }
      const isDir = st.isDirectory();
      if (skip(childRel, isDir)) continue;
      count += 1;
      hash.update(name).update('\0').update(printOf(st)).update('\n');
      if (isDir) {
        hash.update('{');
        walk(childAbs, childRel);
        hash.update('}');
      }
    }
  };
  walk(abs, rel);
  return `dir:${hash.digest('hex')}:${count}`;
}

/**
 * Paths at or below `path` (repo-relative text form `rel`) whose status changed at or after
 * `sinceNs` (ctime, ns since the epoch; a process cannot set a ctime back), at most `limit`,
 * in walk order. Names what a verifier wrote into an ignored directory. Symlinks are not followed.
 */
export function changedSince(path: string | Buffer, rel: string, sinceNs: bigint, limit: number): string[] {
  const out: string[] = [];
  const visit = (abs: Buffer, relPath: string) => {
    if (out.length >= limit) return;
    let st: BigIntStats | undefined;
    try {
      st = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
    } catch {
      return;
    }
    if (!st) return;
    if (!st.isDirectory()) {
      if (st.ctimeNs >= sinceNs) out.push(relPath);
      return;
    }
    let names: Buffer[];
    try {
      names = readdirSync(abs, { encoding: 'buffer' }).sort(Buffer.compare);
    } catch {
      return;
    }
    for (const name of names) visit(Buffer.concat([abs, Buffer.from('/'), name]), `${relPath}/${pathText(name)}`);
  };
  visit(typeof path === 'string' ? Buffer.from(path, 'utf8') : path, rel.replace(/\/$/, ''));
  return out;
}
