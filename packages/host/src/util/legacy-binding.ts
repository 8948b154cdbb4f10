/**
 * One of Node's internal bindings through `process.binding` (DEP0111, deprecated in the
 * documentation only; the warning it prints under `--pending-deprecation` is kept quiet here,
 * since the hook and `control run` print nothing of their own), or `undefined` where Node no
 * longer hands it out. Callers check the shape of what they get and fall back to Node's public
 * module when it is not the shape they know: a binding's calling convention is not a public
 * promise (see `src/control/direct-spawn.ts` for one that changed between majors).
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
 * Whether descriptor `fd` is a terminal, as `tty.isatty` says, asked of Node's `tty_wrap` binding
 * directly: loading `node:tty` also loads Node's socket and stream modules (`net`, `stream`), which
 * `control run` otherwise never needs. Falls back to `node:tty` where the binding is not there.
 */
export function isTerminal(fd: number): boolean {
  const isTTY = legacyBinding('tty_wrap')?.isTTY;
  if (typeof isTTY === 'function') return (isTTY as (fd: number) => boolean)(fd) === true;
  return (process.getBuiltinModule('node:tty') as typeof import('node:tty')).isatty(fd);
}
