import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** The largest file {@link readSettingsText} reads by default, bytes. */
export const SETTINGS_MAX_BYTES = 1024 * 1024;

/**
 * The text (UTF-8) of a small file cordon or the user wrote and a hook-path plugin reads on every
 * call (a settings file such as `<configDir>/control.json`, a session's own record), or
 * `undefined` when it is missing, not a regular file, larger than `maxBytes` (default
 * {@link SETTINGS_MAX_BYTES}), or cannot be read. Opened `O_NONBLOCK` and checked with `fstat`
 * before anything is read: a FIFO with no writer opens at once instead of holding the process
 * (and with it the agent's tool call) until something writes to it, and a device such as
 * `/dev/zero` is never read. Symbolic links are followed. Never throws.
 */
export function readSettingsText(path: string, maxBytes: number = SETTINGS_MAX_BYTES): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    const buffer = Buffer.allocUnsafe(stat.size + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
    // One byte more than its size means it grew while read: more than was allowed, maybe.
    return length > maxBytes ? undefined : buffer.toString('utf8', 0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
