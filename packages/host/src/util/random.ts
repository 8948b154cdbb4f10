import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { nodeCrypto } from './builtins.js';

/**
 * `bytes` random bytes from the kernel's CSPRNG as `2 × bytes` lowercase hex digits, for
 * unpredictable names and nonces (temp files, lock records, scratch directories).
 *
 * Where `/dev/urandom` is a character device (Linux, macOS, the BSDs) the bytes are read from it
 * (urandom(4)); elsewhere, or when it cannot be read, they come from `node:crypto.randomBytes`,
 * the same source behind a module whose first load costs the fast routes about 4–5 ms of CPU
 * (docs/ARCHITECTURE.md "Where the time goes"). Throws only what `randomBytes` throws.
 */
export function randomHex(bytes: number): string {
  return fromUrandom(bytes)?.toString('hex') ?? nodeCrypto().randomBytes(bytes).toString('hex');
}

function fromUrandom(bytes: number): Buffer | undefined {
  if (process.platform === 'win32') return undefined;
  let fd: number | undefined;
  try {
    fd = openSync('/dev/urandom', 'r');
    // A regular file planted there would be no random source at all.
    if (!fstatSync(fd).isCharacterDevice()) return undefined;
    const out = Buffer.allocUnsafe(bytes);
    let filled = 0;
    while (filled < bytes) {
      const n = readSync(fd, out, filled, bytes - filled, null);
      if (n <= 0) return undefined;
      filled += n;
    }
    return out;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
