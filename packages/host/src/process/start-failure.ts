import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { cutText, systemErrorWords } from '@cordon/plugin-api';
import { pathCandidates } from './path-search.js';
import { redactText } from '../output/redact.js';

/** Exit status of a command that was not found (`ENOENT`), as shells and GNU `env` give it. */
export const NOT_FOUND_STATUS = 127;

/** Exit status of a command that was found but cannot be executed (`EACCES`, a directory, `ENOEXEC` …). */
export const CANNOT_EXECUTE_STATUS = 126;

/**
 * Why a command cannot start, in the one wording every command that starts a user's command
 * uses (verifiers, `control run`, `wrap`, `run`'s agent, `arm`'s warning).
 */
export interface StartFailure {
  /**
   * What is wrong, to follow the command's name: `not found on PATH`, `no such file`, `is a
   * directory`, `not executable`, `permission denied`, `not an executable format`, …
   */
  readonly why: string;
  /** The status a shell would give: {@link NOT_FOUND_STATUS} for `ENOENT`, else {@link CANNOT_EXECUTE_STATUS}. */
  readonly status: 126 | 127;
  /** The system error's code (`ENOENT`, `EACCES` …) when the failure came with one. */
  readonly code?: string;
}

/** Where the command was (or would be) started: its working directory and environment (`PATH`). */
export interface StartContext {
  /** Working directory of the command (default this process's); a relative path is taken from it. */
  readonly cwd?: string;
  /** The command's environment, whose `PATH` a bare name is looked up in (default this process's). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * What a start that failed with `error` (its `code`) says on its own, or undefined where the code
 * has no words (the caller then falls back on the message). Two codes mean something particular
 * when a start gives them: `ETXTBSY` (execve(2): the program is still open for writing) and
 * `EAGAIN` (fork(2): the limit on processes); every other one is in the plugin API's words
 * (`systemErrorWords`: `is a directory`, `not an executable format`, …).
 */
function codeWords(code: string, error: unknown): string | undefined {
  if (code === 'ETXTBSY') return 'the file is open for writing (text file busy)';
  if (code === 'EAGAIN') return 'too many processes';
  const words = systemErrorWords(error);
  return words === code ? undefined : words;
}

/**
 * Why `file` would not start if it were started now, looked at without starting it, or
 * `undefined` when it would (as far as the file system says). A bare name (no `/`) is looked up
 * in `PATH` as `execvp(3)` does: `not found on PATH` when no directory holds it, else what is
 * wrong with the first one that does (`is a directory (/usr/local/bin/x)`). A path is taken from
 * `cwd`: `no such file`, `is a directory`, `not a regular file`, `not executable`, or why it cannot
 * be looked at; an executable script whose `#!` line names an interpreter that is missing or
 * cannot run is `its interpreter /x/bash (the #! line) was not found` (or `… is a directory`,
 * `… not executable`). For warnings before a start (`cordon arm`, `cordon run`); the program may
 * yet appear, and only a start decides.
 */
export function commandProblem(file: string, context: StartContext = {}): StartFailure | undefined {
  // No `process.cwd()`: it throws when this process's directory was deleted, and the kernel
  // still takes a relative path from it.
  if (file === '') return { why: 'its name is empty', status: NOT_FOUND_STATUS, code: 'ENOENT' };
  const at = (path: string) => (isAbsolute(path) || context.cwd === undefined ? path : resolve(context.cwd, path));
  if (!hasSeparator(file)) {
    let first: StartFailure | undefined;
    for (const candidate of pathCandidates(file, (context.env ?? process.env).PATH, { cwd: context.cwd ?? '.' })) {
      const problem = fileProblem(at(candidate), context.cwd);
      if (problem === undefined) return undefined;
      // A name no directory holds is skipped, as execvp(3) skips it.
      if (first === undefined && problem.code !== 'ENOENT' && problem.code !== 'ENOTDIR') first = { ...problem, why: `${problem.why} (${candidate})` };
    }
    return first ?? { why: 'not found on PATH', status: NOT_FOUND_STATUS, code: 'ENOENT' };
  }
  return fileProblem(at(file), context.cwd);
}

/**
 * Why starting `file` failed with `error` (a spawn error: `code` `ENOENT`, `EACCES` …), in
 * {@link StartFailure} words. Looks at the file system after the failure only (the success path
 * pays nothing): the system's code alone cannot tell a directory from a file without execute
 * permission (both `EACCES`), a missing file from a missing `#!` interpreter (both `ENOENT`), or
 * either from a missing working directory.
 */
export function describeStartFailure(file: string, error: unknown, context: StartContext = {}): StartFailure {
  const code = typeof (error as { code?: unknown } | null)?.code === 'string' ? (error as { code: string }).code : undefined;
  // Node refuses an empty name itself (ERR_INVALID_ARG_VALUE) before any system call.
  if (file === '') return { why: 'its name is empty', status: NOT_FOUND_STATUS, ...(code ? { code } : {}) };
  const status = code === 'ENOENT' ? NOT_FOUND_STATUS : CANNOT_EXECUTE_STATUS;
  if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR') {
    // The child could not enter its working directory: that failed, not the command.
    const dir = context.cwd === undefined ? undefined : workingDirectoryProblem(context.cwd);
    if (dir !== undefined) return { why: `its working directory ${context.cwd} ${dir}`, status, code };
    const problem = commandProblem(file, context);
    if (problem !== undefined) return { why: problem.why, status, code };
    // The file is there and executable, yet the system said so: its interpreter (ENOENT), a
    // file system mounted noexec or a security policy (EACCES).
    return { why: code === 'ENOENT' ? 'its interpreter (the #! line) was not found' : 'permission denied', status, code };
  }
  const words = code === undefined ? undefined : codeWords(code, error);
  if (words !== undefined) return { why: words, status, ...(code ? { code } : {}) };
  const message = error instanceof Error ? error.message : String(error);
  // Node's message already ends with the code (`spawn x EIO`): the code is said once.
  return { why: code && !message.includes(code) ? `${code}: ${message}` : message, status, ...(code ? { code } : {}) };
}

/** Characters of a command's name that {@link startFailureText} shows. */
const SHOWN_NAME_CHARS = 200;

/**
 * `cannot start 'file': why`, the one sentence for a command that cannot start. A name longer
 * than {@link SHOWN_NAME_CHARS} is cut, with its length said (`'aaa…' (5000 characters)`), and a
 * reason longer than twice that is cut too: an agent's command may be any length, and the system
 * refuses a long one (`ENAMETOOLONG`) by its length anyway. Redact both before, never after: a
 * cut could halve a secret.
 */
export function startFailureText(file: string, failure: Pick<StartFailure, 'why'>): string {
  const shown = file.length > SHOWN_NAME_CHARS ? `'${cutText(file, SHOWN_NAME_CHARS - 1)}…' (${file.length} characters)` : `'${file}'`;
  // The reason may name the file again (the PATH entry it was looked up in).
  const why = failure.why.length > 2 * SHOWN_NAME_CHARS ? `${cutText(failure.why, 2 * SHOWN_NAME_CHARS - 1)}…` : failure.why;
  return `cannot start ${shown}: ${why}`;
}

/** {@link startFailureText} with the secrets in the name and the reason as `***`, redacted before the cut. */
function redactedFailureText(file: string, why: string): string {
  return startFailureText(redactText(file), { why: redactText(why) });
}

/** True when `file` names a path rather than a name to look up in `PATH`. */
function hasSeparator(file: string): boolean {
  return file.includes('/') || (process.platform === 'win32' && file.includes('\\'));
}

/**
 * What is wrong with the file at `path` as a command, or undefined when it is an executable
 * regular file whose `#!` interpreter, if it names one, is one too (`cwd`: where the kernel takes
 * a relative interpreter from; `depth`: scripts already followed, as the kernel stops at 4).
 */
function fileProblem(path: string, cwd: string | undefined, depth = 0): StartFailure | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { why: 'no such file', status: NOT_FOUND_STATUS, code };
    if (code === 'ENOTDIR') return { why: 'a part of its path is not a directory', status: CANNOT_EXECUTE_STATUS, code };
    if (code === 'EACCES') return { why: 'permission denied (a directory on its path cannot be searched)', status: CANNOT_EXECUTE_STATUS, code };
    return { why: (code === undefined ? undefined : codeWords(code, error)) ?? `cannot be looked at (${code ?? String(error)})`, status: CANNOT_EXECUTE_STATUS, ...(code ? { code } : {}) };
  }
  if (stat.isDirectory()) return { why: 'is a directory', status: CANNOT_EXECUTE_STATUS, code: 'EISDIR' };
  if (!stat.isFile()) return { why: 'not a regular file', status: CANNOT_EXECUTE_STATUS, code: 'EACCES' };
  if (process.platform === 'win32') return undefined;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return { why: 'not executable', status: CANNOT_EXECUTE_STATUS, code: 'EACCES' };
  }
  const interpreter = depth < MAX_INTERPRETER_DEPTH ? interpreterOf(path) : undefined;
  if (interpreter === undefined) return undefined;
  const problem = fileProblem(isAbsolute(interpreter) || cwd === undefined ? interpreter : resolve(cwd, interpreter), cwd, depth + 1);
  // A script run through a script: the innermost interpreter is the one at fault.
  if (problem === undefined || problem.why.startsWith('its interpreter ')) return problem;
  // execve(2) reports a missing interpreter as ENOENT, one that cannot run as EACCES.
  if (problem.code === 'ENOENT') return { why: `its interpreter ${interpreter} (the #! line) was not found`, status: NOT_FOUND_STATUS, code: 'ENOENT' };
  return { why: `its interpreter ${interpreter} (the #! line): ${problem.why}`, status: CANNOT_EXECUTE_STATUS, code: problem.code ?? 'EACCES' };
}

/** Scripts the kernel follows through `#!` lines before it gives up (fs/exec.c, `bprm->interp` depth: ELOOP after 4 + 1). */
const MAX_INTERPRETER_DEPTH = 4;
/** Bytes of a script's start the kernel reads for its `#!` line (`BINPRM_BUF_SIZE`, Linux 5.1 and later). */
const SHEBANG_BYTES = 256;

/**
 * The interpreter a script's `#!` line names, as the kernel reads it (fs/binfmt_script.c): the
 * file starts with `#!`, blanks (space, tab) are skipped, and the name runs to the next blank,
 * NUL or newline within the first {@link SHEBANG_BYTES}. Undefined for a file that is not a
 * script, names no interpreter, or cannot be read (a start then decides).
 */
function interpreterOf(path: string): string | undefined {
  const head = Buffer.alloc(SHEBANG_BYTES);
  let length: number;
  try {
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      length = readSync(fd, head, 0, SHEBANG_BYTES, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (length < 2 || head[0] !== 0x23 || head[1] !== 0x21) return undefined;
  let start = 2;
  while (start < length && (head[start] === 0x20 || head[start] === 0x09)) start++;
  let end = start;
  while (end < length && head[end] !== 0x20 && head[end] !== 0x09 && head[end] !== 0x0a && head[end] !== 0x00) end++;
  return end > start ? head.toString('utf8', start, end) : undefined;
}

/** Why `dir` cannot be a working directory (`does not exist`, `is not a directory`, `cannot be entered` …), or undefined: unlike io/directory.ts `directoryProblem` it also needs search (execute) permission. */
function workingDirectoryProblem(dir: string): string | undefined {
  try {
    if (!statSync(dir).isDirectory()) return 'is not a directory';
    accessSync(dir, constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be entered (permission denied)' : code === 'ENOTDIR' ? 'is not a directory' : `cannot be used (${code ?? String(error)})`;
  }
}

/**
 * {@link describeStartFailure} as plugins get it (`api.services.process.describeStartFailure`):
 * the sentence of {@link startFailureText} and the shell's status. `control run` and `wrap` print
 * it for a command a user or an agent typed: a secret in its name is shown as `***`
 * (output/redact.ts).
 */
export function startFailureReport(file: string, error: unknown, where: StartContext = {}): { readonly message: string; readonly status: 126 | 127 } {
  const failure = describeStartFailure(file, error, where);
  return { message: redactedFailureText(file, failure.why), status: failure.status };
}

/**
 * {@link commandProblem} as plugins get it (`api.services.process.startProblem`): the words and
 * status of {@link startFailureReport} for a command that would not start, looked at without
 * starting it; `undefined` when it would, as far as the file system tells.
 */
export function startProblemReport(file: string, where: StartContext = {}): { readonly message: string; readonly status: 126 | 127 } | undefined {
  const problem = commandProblem(file, where);
  return problem === undefined ? undefined : { message: redactedFailureText(file, problem.why), status: problem.status };
}
