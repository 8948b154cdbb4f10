import { existsSync } from 'node:fs';
/**
 * A command-line mistake caught by the pcodx CLI itself (text flags, range syntax, selectors):
 * a usage error, printed as `error: …` with exit code 2 ({@link exitCodeOf}).
 */
export class PcodxUsageError extends Error {
  readonly code = 'PCODX_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'PcodxUsageError';
  }
}

/**
 * Something outside cordon failed in a way the user can act on (an app-server that cannot start,
 * dies or stays silent past the timeout, an address refused). Printed as `error: …`, exit 1.
 */
export class PcodxRuntimeError extends Error {
  readonly code = 'PCODX_RUNTIME';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PcodxRuntimeError';
  }
}

/**
 * Why the Codex app-server could not be started, in one wording for every pcodx command that
 * starts one (`serve`'s watchdog, `model-turn`): `cannot start <bin>: …`, and for a program that
 * is not there (ENOENT) how to get it, as `cordon run` says for a missing agent. `reason` is the
 * spawn error's message (`spawn codex ENOENT`) or its code.
 */
export function cannotStartCodex(bin: string, reason: string): string {
  if (!/\bENOENT\b/.test(reason)) return `cannot start ${bin}: ${reason}`;
  const remedy = 'install it (npm install -g @openai/codex) or pass --codex-bin PATH';
  // A name is looked up on PATH; a path is not, so "not on PATH" would mislead.
  if (!bin.includes('/') && !(process.platform === 'win32' && bin.includes('\\'))) return `cannot start ${bin}: it is not installed or not on PATH; ${remedy}`;
  // ENOENT for a file that is there: the interpreter of its #! line (node, for npm's codex) is missing.
  if (existsSync(bin)) return `cannot start ${bin}: the interpreter its #! line names was not found (for npm's codex, node on PATH)`;
  return `cannot start ${bin}: there is no such file; ${remedy}`;
}

/** Codes whose errors are the user's to fix: the CLI prints `error: …` ({@link exitCodeOf}); the interactive loop goes on. */
const USER_CODES = new Set(['PCODX_USAGE', 'CORDON_LEDGER_REFUSED', 'CORDON_PLUGIN_ERROR']);

/** True for an error the interactive loop reports and survives (the Rust pcodx, SichangHe/partial_compact_codex: IO and SQL errors abort). */
export function isUserError(error: unknown): boolean {
  return USER_CODES.has(String((error as { code?: unknown } | null)?.code));
}

/** True for any error cordon raised on purpose (its message is meant for the user as it is). */
export function isReportable(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code);
  return code === 'PCODX_USAGE' || code === 'PCODX_RUNTIME' || code.startsWith('CORDON_');
}

/**
 * The exit code of a reported error: 2 for a usage error ({@link PcodxUsageError}, or the host's
 * `CORDON_BAD_INPUT`, such as a `--db` that is a URL), as every cordon
 * usage error exits (docs/reference.md), else 1 (a refused ledger request, a database or runtime
 * failure, as the Rust pcodx exits).
 */
export function exitCodeOf(error: unknown): 1 | 2 {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'PCODX_USAGE' || code === 'CORDON_BAD_INPUT' ? 2 : 1;
}
