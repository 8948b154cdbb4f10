/**
 * Words for the system errors reading, writing or opening a file, starting a program, or
 * connecting to a server fails with, keyed by Node's `code` (errno(3) names), so that a message says what is wrong (`no such
 * file`, `is a directory`) instead of a code or Node's `EISDIR: illegal operation on a directory,
 * read`. The host's start failures (process/start-failure.ts) and report files
 * (output/report-file.ts) read them too.
 */
const WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'its name is too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  EIO: 'input/output error',
  ENXIO: 'no such device',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EFBIG: 'the file would be too large',
  EBUSY: 'busy',
  ENOMEM: 'not enough memory',
  // Only execve(2) gives these two.
  ENOEXEC: 'not an executable format',
  E2BIG: 'its arguments and environment are too long',
  // Connecting to a server (a telemetry database, an OTLP collector): getaddrinfo(3) and connect(2).
  ENOTFOUND: 'no such host (its name does not resolve)',
  EAI_AGAIN: 'its host name could not be looked up for now (DNS)',
  ECONNREFUSED: 'connection refused (nothing listens there)',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'the network is unreachable',
};

/**
 * What a failed file-system call (`error`, as Node throws it: `code` `ENOENT`, `EISDIR` …) says
 * is wrong, in a few words for a message that names the path itself: `no such file`, `is a
 * directory`, `permission denied`, …; for a code without words of its own, libuv's description
 * from the message (`EXDEV: cross-device link not permitted, rename '/a' -> '/b'` gives `cross-device
 * link not permitted`: never the system call or a path, which may be an internal one the user
 * never named), else the code; an error without a code by its message. Shared by the host (the
 * audit's unreadable paths, the ledger's `--db`) and plugins (`pcodx --text-file`).
 */
export function systemErrorWords(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return message;
  const words = WORDS[code];
  if (words !== undefined) return words;
  const described = message.startsWith(`${code}: `) ? /^[^:]*: ([^,]+)/.exec(message)?.[1]?.trim() : undefined;
  return described || code;
}

/** The codes of a failed connection to a server, which {@link connectionErrorWords} words. */
const CONNECTION_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Why a connection to a server failed, in words (`connection refused (nothing listens there)`,
 * `no such host (its name does not resolve)`), when `error` or its `cause` (fetch puts the socket's
 * error there) carries a connection error code; `undefined` otherwise, so the caller keeps its
 * own words. Never the system call's text (`getaddrinfo ENOTFOUND db`, `connect ECONNREFUSED
 * 127.0.0.1:4318`): the message that uses it names the server itself.
 */
export function connectionErrorWords(error: unknown): string | undefined {
  for (let e = error, depth = 0; e !== null && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return WORDS[code];
  }
  return undefined;
}
