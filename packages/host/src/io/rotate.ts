import { lstatSync, renameSync } from 'node:fs';

/**
 * Moves the append-only file `file` to `<file>.1` (replacing the one before) once it holds
 * `atBytes` or more, so that the next append begins a new one and the two together keep at most
 * about twice `atBytes`: cordon's log and `control run`'s records gain a line per call, thousands
 * a day with `control guard` on. Many processes append at once: the file is moved only while it
 * is still the one measured (same inode), so one that another process has just begun is left
 * alone. Best effort: a missing file, a race lost, or an error leaves everything as it is.
 */
export function rotateWhenFull(file: string, atBytes: number): void {
  try {
    const measured = lstatSync(file);
    if (!measured.isFile() || measured.size < atBytes) return;
    if (lstatSync(file).ino !== measured.ino) return;
    renameSync(file, `${file}.1`);
  } catch {
    // No file yet, or another process rotated it first.
  }
}
