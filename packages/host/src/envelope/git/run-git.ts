import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { runManaged, type ManagedChild } from '../process.js';
import { indexOfByte } from '../../util/byte-search.js';
import { absoluteGitNames, realGitNames, type PrivateGitNames } from './private-names.js';

/** Default wall-clock limit of one git command, in ms. */
export const GIT_TIMEOUT_MS = 300_000;
/** stderr kept for error messages, in bytes. */
const STDERR_KEEP = 64 * 1024;

/** How to run git for one command. */
export interface GitInvocation {
  /** Working directory. */
  readonly cwd: string;
  /** Complete environment (see `gitEnvironment`). */
  readonly env: NodeJS.ProcessEnv;
  /** git executable (default `git` on PATH; tests point it at a failing stand-in). */
  readonly gitBinary?: string;
  /** Limit in ms (default {@link GIT_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
  /** Set when `env` points git at cordon's private git directory: its paths in errors are named as what they stand for. */
  readonly privateNames?: PrivateGitNames;
}

/** Per-call options of {@link git} / {@link gitRecords}. */
export interface GitCallOptions {
  /** Bytes for stdin; default /dev/null. */
  readonly input?: Buffer | string;
  /** Exit codes that are not failures (default `[0]`). */
  readonly okExitCodes?: readonly number[];
  /** Hears the started process (callers that may have to stop it early). */
  readonly onSpawn?: (child: ManagedChild) => void;
}

/**
 * Runs `git <args>` and returns its whole stdout. For small outputs (rev-parse, config);
 * large listings go through {@link gitRecords}. A non-zero exit (outside `okExitCodes`), a
 * timeout, or a git that cannot start throws `CORDON_REPO_ERROR` (exit 2) with git's stderr.
 */
export async function git(inv: GitInvocation, args: readonly string[], options: GitCallOptions = {}): Promise<{ stdout: Buffer; exitCode: number }> {
  const chunks: Buffer[] = [];
  const exitCode = await stream(inv, args, (chunk) => chunks.push(chunk), options);
  return { stdout: Buffer.concat(chunks), exitCode };
}

/**
 * Runs `git <args>` whose stdout is NUL-terminated records (`-z`) and hands each record to
 * `onRecord` as it streams in, so output size never matters ("no size ceiling").
 * The Buffer passed to `onRecord` is only valid during the call; copy what you keep.
 * Errors as in {@link git}; a trailing record without its NUL is an error too.
 */
export async function gitRecords(inv: GitInvocation, args: readonly string[], onRecord: (record: Buffer) => void, options: GitCallOptions = {}): Promise<void> {
  await gitRecordSpans(inv, args, (data, start, end) => onRecord(data.subarray(start, end)), options);
}

/**
 * {@link gitRecords} without a Buffer per record: `onSpan(data, start, end)` names the record
 * as a span of `data` (valid during the call only). For listings of every index entry, where
 * most records are skipped after looking at one byte.
 */
export async function gitRecordSpans(inv: GitInvocation, args: readonly string[], onSpan: (data: Buffer, start: number, end: number) => void, options: GitCallOptions = {}): Promise<void> {
  let pending: Buffer | undefined;
  await stream(
    inv,
    args,
    (chunk) => {
      const data = pending ? Buffer.concat([pending, chunk]) : chunk;
      let start = 0;
      for (let nul = indexOfByte(data, 0, start); nul !== -1; nul = indexOfByte(data, 0, start)) {
        onSpan(data, start, nul);
        start = nul + 1;
      }
      pending = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
    },
    options,
  );
  if (pending && pending.length > 0) throw repoError(args, 'output ended inside a record (missing NUL terminator)');
}

async function stream(inv: GitInvocation, args: readonly string[], onStdout: (chunk: Buffer) => void, options: GitCallOptions): Promise<number> {
  let result;
  let consumerError: unknown;
  try {
    result = await runManaged([inv.gitBinary ?? 'git', ...args], {
      cwd: inv.cwd,
      env: inv.env,
      timeoutMs: inv.timeoutMs ?? GIT_TIMEOUT_MS,
      keepBytes: STDERR_KEEP,
      input: options.input,
      onSpawn: options.onSpawn,
      onStdout: (chunk) => {
        if (consumerError) return;
        try {
          onStdout(chunk);
        } catch (error) {
          consumerError = error;
        }
      },
    });
  } catch (error) {
    throw repoError(args, (error as Error).message, error);
  }
  if (consumerError) throw consumerError;
  if (result.timedOut) throw repoError(args, `timed out after ${inv.timeoutMs ?? GIT_TIMEOUT_MS} ms`);
  const code = result.exitCode ?? -1;
  if (!(options.okExitCodes ?? [0]).includes(code)) {
    const stderr = gitErrorText(inv, result.stderr.toString('utf8').trim());
    throw repoError(args, `exited ${result.signal ?? code}${stderr ? `: ${stderr}` : ''}`, undefined, result.signal ? {} : { exit_code: code });
  }
  return code;
}

/**
 * git's stderr of a failed command as the user should read it, naming the repository's files by
 * absolute path whichever way git ran (git/private-names.ts): the paths of cordon's private git
 * directory (when `inv` runs git through one) as the user's files they stand for, and a `.git`
 * git names relative to the working directory (plain git in the user's repository) absolute.
 * Only for the error path.
 */
export function gitErrorText(inv: GitInvocation, stderr: string): string {
  return inv.privateNames ? realGitNames(stderr, inv.privateNames) : absoluteGitNames(stderr, inv.cwd);
}

/**
 * A `CORDON_REPO_ERROR` naming the git subcommand; `details.git` holds the arguments, and
 * `details.exit_code` the exit code of a git that ran and failed (128 for git's `fatal:`).
 */
export function repoError(args: readonly string[], message: string, cause?: unknown, details: { exit_code?: number } = {}): CordonError {
  const sub = args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? 'git';
  return new CordonError(ERROR_CODES.REPO_ERROR, `git ${sub} ${message}`, { cause, details: { git: [...args], ...details } });
}
