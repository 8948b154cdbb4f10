/**
 * The few terminal controls the live view writes (ECMA-48; xterm's "Control Sequences", the
 * private modes `?1049` and `?25`), all its own: agent text never reaches the terminal unescaped.
 */

/** Switch to the alternate screen (the user's scrollback stays untouched) and hide the cursor. */
export const ENTER_SCREEN = '\x1b[?1049h\x1b[?25l';

/** Show the cursor and go back to the normal screen, as it was before. */
export const LEAVE_SCREEN = '\x1b[?25h\x1b[?1049l';

/**
 * One frame: the cursor home, each line followed by "erase to end of line", and "erase below"
 * after the last, written in one go. Nothing is cleared before it is redrawn, so the screen never
 * shows blank between frames (no flicker). At most `rows` lines; the last has no newline, so the
 * screen never scrolls.
 */
export function frame(lines: readonly string[], rows: number): string {
  return `\x1b[H${lines
    .slice(0, Math.max(1, rows))
    .map((line) => `${line}\x1b[K`)
    .join('\r\n')}\x1b[J`;
}
