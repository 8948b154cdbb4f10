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
  return terminalSize(reported, env.COLUMNS, FALLBACK_COLUMNS);
}

/** Rows assumed when neither the terminal nor `LINES` gives a usable height: a VT100's 24. */
export const FALLBACK_ROWS = 24;

/**
 * The rows of the terminal a stream writes to, as {@link terminalColumns} finds its columns:
 * `reported` (a TTY stream's `rows`) when it is a positive integer; else `LINES` from `env` (POSIX
 * XBD 8.3 names it beside `COLUMNS`); else {@link FALLBACK_ROWS}. A terminal reporting 0 rows
 * (`stty rows 0`) would leave no room for a single line. Never 0 or negative.
 */
export function terminalRows(reported: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  return terminalSize(reported, env.LINES, FALLBACK_ROWS);
}

/** `reported` when a positive integer, else `variable` when it is one (at most 100,000), else `fallback`. */
function terminalSize(reported: number | undefined, variable: string | undefined, fallback: number): number {
  if (reported !== undefined && Number.isInteger(reported) && reported > 0) return reported;
  const fromEnv = variable?.trim();
  if (fromEnv && /^[0-9]+$/.test(fromEnv) && Number(fromEnv) > 0 && Number(fromEnv) <= 100_000) return Number(fromEnv);
  return fallback;
}
