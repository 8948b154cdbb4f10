import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The shim's script (`dist/shim/shell.js`). */
export const SHIM_SCRIPT = fileURLToPath(new URL('../shim/shell.js', import.meta.url));

/** Quotes one word for a POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Writes the executable `$SHELL` stand-in for `--shell-shim` into `dir` and returns its path: a
 * two-line POSIX script that execs this Node.js on the shim (agents exec `$SHELL` directly, so it
 * must be an executable file, not a command line).
 */
export function writeShellLauncher(dir: string, node: string = process.execPath): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, 'cordon-shell');
  writeFileSync(path, `#!/bin/sh\nexec ${shellQuote(node)} ${shellQuote(SHIM_SCRIPT)} "$@"\n`, { mode: 0o700 });
  chmodSync(path, 0o700); // owner-only, executable, whatever the umask
  return path;
}
