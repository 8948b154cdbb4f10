import type { RepoLocation } from '../git/repo.js';
import { fileIdentity } from './known-digests.js';
import { envelopePaths, loadEnvelope, type Envelope } from './store.js';

/**
 * An envelope read before its repository was confirmed and its lock taken, with the identity of
 * every file the read depended on as it was before the read began.
 */
export interface EnvelopeReadAhead {
  /** The location the envelope was read for (a guess until `git rev-parse` confirms it). */
  readonly loc: RepoLocation;
  readonly envelope: Envelope;
  readonly prints: string;
}

/**
 * Reads and validates the envelope of the guessed location `loc` while `cordon check` waits for
 * git to locate the repository (about 4 ms of the 20-file check's CPU; docs/ARCHITECTURE.md
 * "Where the time goes"). Returns `undefined` when anything fails: the check then reads the
 * envelope as usual, under the lock, and reports what is wrong. Never throws.
 */
export function readEnvelopeAhead(loc: RepoLocation): EnvelopeReadAhead | undefined {
  try {
    const prints = filePrints(loc);
    return { loc, envelope: loadEnvelope(loc), prints };
  } catch {
    return undefined;
  }
}

/**
 * The read-ahead envelope when it is the one a read now, under the lock, would give: `loc` is
 * the location it was read for, and none of its files (`.cordon/` and its three files,
 * `info/exclude`) has been replaced, written or touched since. Cordon writes these files by
 * renaming a new inode over them (io/atomic-write.ts) and under the lock, so a writer that ran
 * between the read and the lock changed an inode number at least; any other change shows in a
 * size or a change time. Otherwise `undefined`: the caller reads again.
 */
export function currentReadAhead(ahead: EnvelopeReadAhead | undefined, loc: RepoLocation): Envelope | undefined {
  if (!ahead) return undefined;
  const a = ahead.loc;
  const same = a.root === loc.root && a.gitDir === loc.gitDir && a.commonDir === loc.commonDir && a.excludeFile === loc.excludeFile;
  if (!same) return undefined;
  try {
    return filePrints(loc) === ahead.prints ? ahead.envelope : undefined;
  } catch {
    return undefined;
  }
}

/** The {@link fileIdentity} of each file an envelope read depends on, `-` for a missing one. */
function filePrints(loc: RepoLocation): string {
  const paths = envelopePaths(loc.root);
  return [paths.dir, paths.config, paths.snapshot, paths.state, loc.excludeFile].map((path) => fileIdentity(path)?.print ?? '-').join('|');
}
