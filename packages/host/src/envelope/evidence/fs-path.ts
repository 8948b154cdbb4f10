import { pathBytes } from '../path-text.js';

/**
 * Absolute filesystem path (as bytes, so names that are not UTF-8 survive) of the repo-relative
 * `rel` under `root`. A trailing `/` on `rel` is dropped.
 */
export function absPath(root: string, rel: string): Buffer {
  const trimmed = rel.endsWith('/') ? rel.slice(0, -1) : rel;
  return Buffer.concat([Buffer.from(root, 'utf8'), Buffer.from('/'), pathBytes(trimmed)]);
}
