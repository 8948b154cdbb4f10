import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { writeFileAtomic, writeTarget } from '../../io/atomic-write.js';
import { readRegularFile, UnsafeReadError } from '../../io/safe-read.js';
import { sha256Hex } from '../../util/hash.js';

/** The line cordon adds to `info/exclude` so `.cordon/` never shows up in `git status`. */
export const EXCLUDE_LINE = '/.cordon/';

/** Largest `info/exclude` cordon reads (git itself reads any size; 16 MiB of patterns is far beyond use). */
export const EXCLUDE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Registers {@link EXCLUDE_LINE} in the repository's `info/exclude` (`git rev-parse --git-path
 * info/exclude`) unless a line equal to it exists, adding a newline first when the file lacks a
 * trailing one (the BEKO2210/SkillQuarry cordon). The file keeps its mode (the reference turned it into 0600); a missing file is created 0644 as git creates it. When `info/exclude` is a
 * symbolic link (a shared exclude file), the line lands in the file the link names, written
 * atomically beside that target, and the link stays. Returns the SHA-256 of
 * the file afterwards. Throws `CORDON_REPO_ERROR` (exit 2) naming the file (and the link's target)
 * when it cannot be read or written: not a regular file, a dangling link whose target directory
 * is missing, a read-only target.
 */
export function registerExclude(excludeFile: string): string {
  let target: string;
  try {
    target = writeTarget(excludeFile);
  } catch (error) {
    throw excludeError(excludeFile, excludeFile, 'resolve', error);
  }
  let content = readExclude(excludeFile, true) ?? Buffer.alloc(0);
  let mode = 0o644;
  try {
    mode = statSync(target).mode & 0o7777;
  } catch {
    // A new file: git's own default mode.
  }
  const lines = content.toString('latin1').split('\n');
  if (!lines.some((line) => line.replace(/\r$/, '') === EXCLUDE_LINE)) {
    const sep = content.length > 0 && content[content.length - 1] !== 0x0a ? '\n' : '';
    content = Buffer.concat([content, Buffer.from(`${sep}${EXCLUDE_LINE}\n`)]);
    try {
      if (target === excludeFile || target === resolve(excludeFile)) mkdirSync(dirname(target), { recursive: true });
      writeFileAtomic(excludeFile, content, { mode, links: 'target' });
    } catch (error) {
      throw excludeError(excludeFile, target, 'write', error);
    }
  }
  return sha256(content);
}

/**
 * The bytes of `info/exclude` (a link is followed: a shared exclude file is a normal setup), read
 * with `readRegularFile` (no FIFO or device, at most {@link EXCLUDE_MAX_BYTES}); undefined when it
 * does not exist and `missingOk`. Errors are `CORDON_REPO_ERROR` naming the path, never content.
 */
export function readExclude(path: string, missingOk: boolean): Buffer | undefined {
  try {
    return readRegularFile(path, { maxBytes: EXCLUDE_MAX_BYTES, links: 'always' });
  } catch (error) {
    if (missingOk && error instanceof UnsafeReadError && error.reason === 'missing') return undefined;
    throw excludeError(path, path, 'read', error);
  }
}

function excludeError(path: string, target: string, verb: string, error: unknown): CordonError {
  const why = error instanceof UnsafeReadError ? error.detail : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
  const via = target !== path && target !== resolve(path) ? ` (a symbolic link to ${target})` : '';
  return new CordonError(ERROR_CODES.REPO_ERROR, `cannot ${verb} ${path}${via}, where cordon registers ${EXCLUDE_LINE}: ${why}`, { cause: error, details: { path, target } });
}

/** SHA-256 (hex) of `info/exclude` as {@link readExclude} reads it; a missing or unreadable file is a state error (the BEKO2210/SkillQuarry cordon H04). */
export function hashFile(path: string): string {
  try {
    return sha256(readRegularFile(path, { maxBytes: EXCLUDE_MAX_BYTES, links: 'always' }));
  } catch (error) {
    const why = error instanceof UnsafeReadError ? error.message : `${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
    throw new CordonError(ERROR_CODES.BAD_STATE, `cannot hash ${why}`, { cause: error });
  }
}

/** SHA-256 (hex) of bytes or a UTF-8 string. */
export function sha256(data: string | Buffer): string {
  return sha256Hex(data);
}
