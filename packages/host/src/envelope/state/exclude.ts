import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { writeFileAtomic } from '../../io/atomic-write.js';

/** The line cordon adds to `info/exclude` so `.cordon/` never shows up in `git status`. */
export const EXCLUDE_LINE = '/.cordon/';

/**
 * Registers {@link EXCLUDE_LINE} in the repository's `info/exclude` (`git rev-parse --git-path
 * info/exclude`) unless a line equal to it exists, adding a newline first when the file lacks a
 * trailing one (research §4.1). The file keeps its mode (the reference turned it into 0600:
 * §18.3 item 17); a missing file is created 0644 as git creates it. Returns the SHA-256 of
 * the file afterwards.
 */
export function registerExclude(excludeFile: string): string {
  let content: Buffer;
  let mode = 0o644;
  try {
    content = readFileSync(excludeFile);
    mode = statSync(excludeFile).mode & 0o7777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new CordonError(ERROR_CODES.REPO_ERROR, `cannot read ${excludeFile}: ${(error as Error).message}`, { cause: error });
    content = Buffer.alloc(0);
    mkdirSync(dirname(excludeFile), { recursive: true });
  }
  const lines = content.toString('latin1').split('\n');
  if (!lines.some((line) => line.replace(/\r$/, '') === EXCLUDE_LINE)) {
    const sep = content.length > 0 && content[content.length - 1] !== 0x0a ? '\n' : '';
    content = Buffer.concat([content, Buffer.from(`${sep}${EXCLUDE_LINE}\n`)]);
    writeFileAtomic(excludeFile, content, mode);
  }
  return sha256(content);
}

/** SHA-256 (hex) of a file; a missing or unreadable file is a state error (research §16.2 H04). */
export function hashFile(path: string): string {
  try {
    return sha256(readFileSync(path));
  } catch (error) {
    throw new CordonError(ERROR_CODES.BAD_STATE, `cannot hash ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** SHA-256 (hex) of bytes or a UTF-8 string. */
export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
