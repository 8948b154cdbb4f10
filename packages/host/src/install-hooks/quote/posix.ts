import { join as shlexJoin, quote as shlexQuote } from 'shlex';

/**
 * Quoting for POSIX shells (`sh -c`, bash, Git Bash's MSYS bash) and for Python's
 * `shlex.split` (Hermes splits hook commands with it and runs the argv without a shell).
 *
 * Rule (POSIX.1-2017 XCU 2.2.2, "Single-Quotes"): every character between single quotes is
 * literal, and a single quote cannot occur inside them, so an argument is written as `'…'` and
 * each `'` in it closes the quotes, is written `"'"` and reopens them. Arguments made only of
 * `[A-Za-z0-9_@%+=:,./-]` need no quotes (the safe set of Python's `shlex.quote`, which
 * the `shlex` package follows and whose output earlier installs wrote). Backslashes in Windows
 * paths are literal inside single quotes, so `'C:\Users\Ann O'"'"'Neil\…'` reaches bash and
 * `shlex.split` unchanged.
 */

/** One argument for a POSIX shell: unchanged when safe, else single-quoted. */
export function posixQuote(arg: string): string {
  return shlexQuote(arg);
}

/** A command line for a POSIX shell: each argument {@link posixQuote}d, joined by spaces. */
export function posixCommand(argv: readonly string[]): string {
  return shlexJoin([...argv]);
}
