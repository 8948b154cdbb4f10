import { hasEscapedBytes, pathBytes } from '../path-text.js';

/**
 * Absolute filesystem path of the repo-relative `rel` under `root` (a trailing `/` on `rel` is
 * dropped). A plain string when the name is valid UTF-8, else bytes, so names that are not
 * UTF-8 reach the filesystem unchanged.
 */
export function absPath(root: string, rel: string): string | Buffer {
  const trimmed = rel.endsWith('/') ? rel.slice(0, -1) : rel;
  if (!hasEscapedBytes(trimmed)) return `${root}/${trimmed}`;
  return Buffer.concat([Buffer.from(root, 'utf8'), Buffer.from('/'), pathBytes(trimmed)]);
}
