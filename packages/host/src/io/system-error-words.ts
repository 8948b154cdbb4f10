/**
 * What went wrong in a system error (`error`, one of Node's fs errors), in the words of its
 * description without the code in front or the call and path behind: Node words `EACCES` as
 * `EACCES: permission denied, lstat '/repo/src/dir/.git'`, which names an internal probe (the
 * `.git` that tells a nested repository) rather than the path the user knows. Returns
 * `permission denied`, `no such file or directory`, …; the code itself
 * (`ELOOP`) when the message has no description; the message as it is for any other error.
 * Callers name the path themselves.
 */
export function systemErrorWords(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== 'string') return message;
  // libuv's form: `<CODE>: <description>, <syscall> '<path>'` (the path part is optional).
  const described = new RegExp(`^${code}: ([^,]+)`).exec(message);
  return described ? described[1]!.trim() : code;
}
