/** Columns assumed when neither the terminal nor `COLUMNS` gives a usable width: what most tools assume. */
export const FALLBACK_COLUMNS = 80;

/**
 * The columns of the terminal a stream writes to: `reported` (a TTY stream's `columns`) when it is
 * a positive integer; else `COLUMNS` from `env` when that is a positive integer (the variable POSIX
 * XBD 8.3 "Other Environment Variables" names for the user's preferred width); else
 * {@link FALLBACK_COLUMNS}. A terminal may report 0 columns (`stty cols 0`, a pty `script` opens
 * in some environments) or none: laying lines out to that width would cut every one, so such a
 * width counts as unknown. Never 0 or negative.
 */
export function terminalColumns(reported: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (reported !== undefined && Number.isInteger(reported) && reported > 0) return reported;
  const fromEnv = env.COLUMNS?.trim();
  if (fromEnv && /^[0-9]+$/.test(fromEnv) && Number(fromEnv) > 0 && Number(fromEnv) <= 100_000) return Number(fromEnv);
  return FALLBACK_COLUMNS;
}
