import { terminalColumns } from '../output/terminal-width.js';

/** The fewest columns `cordon top` lays out to (also `--width`'s minimum): below it no row is readable. */
export const TOP_MIN_WIDTH = 40;

/**
 * The width `cordon top` fits its lines to on a terminal reporting `reported` columns: one less
 * than the terminal's ({@link terminalColumns}: 0 or unknown counts as `COLUMNS`, else 80), since
 * writing the last column leaves a pending wrap; never below {@link TOP_MIN_WIDTH}.
 */
export function topWidth(reported: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  return Math.max(TOP_MIN_WIDTH, terminalColumns(reported, env) - 1);
}
