// Node's internal bindings for the fast routes, and what they answer cheaply. This module imports
// nothing: on Node 24 an ES module that imports `node:fs` also loads `node:os`, which the host's
// binding helpers exist to avoid (packages/host/test/util/legacy-binding.test.ts); `node:fs` is
// taken with `process.getBuiltinModule` when needed. The host imports it as
// `@cordon/plugin-api/legacy-binding`, not through the package's index.

/** Node's `fs` module, without an ES module import of it. */
const fs = (): typeof import('node:fs') => process.getBuiltinModule('node:fs') as typeof import('node:fs');

/**
 * One of Node's internal bindings through `process.binding` (DEP0111, deprecated in the
 * documentation only; the warning it prints under `--pending-deprecation` is kept quiet here,
 * since the hook and `control run` print nothing of their own), or `undefined` where Node no
 * longer hands it out. Callers check the shape of what they get and fall back to Node's public
 * module when it is not the shape they know: a binding's calling convention is not a public
 * promise (the host's `src/process/direct-spawn.ts` reads one that changed between majors).
 */
export function legacyBinding(name: string): Record<string, unknown> | undefined {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    const binding = (process as unknown as { binding?: (name: string) => Record<string, unknown> }).binding;
    return typeof binding === 'function' ? binding(name) : undefined;
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = quiet;
  }
}

/**
 * Whether descriptor `fd` is a terminal, as `tty.isatty` says. A descriptor that is not a
 * character device (a pipe, a socket, a file) is not, from one `fstat`; otherwise Node's
 * `tty_wrap` binding is asked directly: loading `node:tty` also loads Node's socket and stream
 * modules (`net`, `stream`). Falls back to `node:tty` where the binding is not there.
 */
export function isTerminal(fd: number): boolean {
  try {
    if (!fs().fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  const isTTY = legacyBinding('tty_wrap')?.isTTY;
  if (typeof isTTY === 'function') return (isTTY as (fd: number) => boolean)(fd) === true;
  return (process.getBuiltinModule('node:tty') as typeof import('node:tty')).isatty(fd);
}
