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

/**
 * The columns a line of the live view may take on a terminal reporting `reported` columns: one
 * less than the terminal's (as {@link topWidth}), at least 1, and not raised to
 * {@link TOP_MIN_WIDTH}. Lines are laid out to {@link topWidth} and then cut to this, so on a
 * terminal narrower than the layout (10 columns, a split pane) no line wraps and scrolls the frame.
 */
export function screenWidth(reported: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  return Math.max(1, terminalColumns(reported, env) - 1);
}
