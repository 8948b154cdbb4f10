import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { pathBytes } from '../path-text.js';
import { EXCLUDE_LINE } from '../state/exclude.js';
import { nodeChildProcess } from '../../util/builtins.js';
import { gitErrorText, type GitInvocation } from './run-git.js';
import { indexOfByte } from '../../util/byte-search.js';

/** Answers "would git ignore this path?" for batches of repo-relative paths (directories end in `/`). */
export interface IgnoreAnswers {
  /** One answer per path, in order. */
  ignored(paths: readonly string[]): Promise<boolean[]>;
}

/** The answers when no ignore rule is in force: nothing is ignored. */
export const NOTHING_IGNORED: IgnoreAnswers = { ignored: (paths) => Promise.resolve(paths.map(() => false)) };

/**
 * Whether any of `sources` (contents of ignore files; `null` = no file) holds a pattern. Per
 * gitignore(5) a blank line (trailing spaces are dropped) and a `#` comment hold none. The
 * `/.cordon/` line arming registers (state/exclude.ts) is not counted either: the audit never
 * asks about `.cordon/`. Anything else counts, so a doubtful line means git is asked.
 */
export function holdsIgnorePatterns(sources: Iterable<string | null>): boolean {
  for (const source of sources) {
    if (source === null) continue;
    for (const line of source.split('\n')) {
      if (/^ *$/.test(line) || line.startsWith('#') || line === EXCLUDE_LINE) continue;
      return true;
    }
  }
  return false;
}

/**
 * Answers "would git ignore this path?" through one long-lived
 * `git check-ignore --stdin -z -v -n --no-index` process (git flushes after every answer, so
 * queries can be pipelined). Which rules apply is decided by the invocation: the live work
 * tree at arm time, or a scratch tree holding only the arm-time `.gitignore` files at check
 * time. Directory paths are asked with a trailing `/` so directory-only patterns apply.
 */
export class IgnoreOracle implements IgnoreAnswers {
  #child: ChildProcessWithoutNullStreams | undefined;
  #field = 0;
  #ignored = false;
  #partial: Buffer | undefined;
  #batches: Array<{ answers: boolean[]; size: number; resolve: (answers: boolean[]) => void; reject: (error: unknown) => void }> = [];
  #failure: CordonError | undefined;
  #stderr = '';

  constructor(private readonly inv: GitInvocation) {}

  /** Answers for `paths` (repo-relative text form; directories end in `/`), in order. */
  ignored(paths: readonly string[]): Promise<boolean[]> {
    if (paths.length === 0) return Promise.resolve([]);
    if (this.#failure) return Promise.reject(this.#failure);
    const child = this.#start();
    const answer = new Promise<boolean[]>((resolve, reject) => this.#batches.push({ answers: [], size: paths.length, resolve, reject }));
    child.stdin.write(Buffer.concat(paths.flatMap((p) => [pathBytes(p), Buffer.of(0)])));
    return answer;
  }

  /** Ends the git process. */
  close(): void {
    const child = this.#child;
    this.#child = undefined;
    if (child && child.exitCode === null) {
      child.stdin.end();
      child.kill('SIGTERM');
    }
  }

  #start(): ChildProcessWithoutNullStreams {
    if (this.#child) return this.#child;
    // child_process on first use: the fast `cordon check` asks git about ignore rules only when
    // a path needs it, and loading the module costs every check several ms (`npm run bench:envelope`).
    const child = nodeChildProcess().spawn(this.inv.gitBinary ?? 'git', ['check-ignore', '--stdin', '-z', '-v', '-n', '--no-index'], {
      cwd: this.inv.cwd,
      // Answers are read one request at a time: git must flush each one (GIT_FLUSH).
      env: { ...this.inv.env, GIT_FLUSH: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.on('error', () => undefined);
    child.stdout.on('data', (chunk: Buffer) => this.#onData(chunk));
    // Decoded as a stream: a character git's writes split across two reads stays whole.
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (this.#stderr.length < 4096) this.#stderr += chunk;
    });
    child.on('error', (error) => this.#fail(`cannot start git check-ignore: ${error.message}`));
    child.on('close', (code) => {
      if (this.#batches.length > 0) this.#fail(`git check-ignore exited ${code}${this.#stderr ? `: ${gitErrorText(this.inv, this.#stderr.trim())}` : ''}`);
    });
    this.#child = child;
    return child;
  }

  /** Answers are four NUL-terminated fields (source, line, pattern, path); only the pattern decides. */
  #onData(chunk: Buffer): void {
    const data = this.#partial ? Buffer.concat([this.#partial, chunk]) : chunk;
    let start = 0;
    for (let nul = indexOfByte(data, 0); nul !== -1; nul = indexOfByte(data, 0, start)) {
      if (this.#field === 2) this.#ignored = isIgnoredPattern(data.subarray(start, nul));
      start = nul + 1;
      if (++this.#field === 4) {
        this.#field = 0;
        const batch = this.#batches[0];
        if (batch) {
          batch.answers.push(this.#ignored);
          if (batch.answers.length === batch.size) {
            this.#batches.shift();
            batch.resolve(batch.answers);
          }
        }
      }
    }
    this.#partial = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
  }

  #fail(message: string): void {
    this.#failure ??= new CordonError(ERROR_CODES.REPO_ERROR, message);
    for (const b of this.#batches.splice(0)) b.reject(this.#failure);
  }
}

/** A matching pattern that is not a negation (`!…`) means ignored; an empty one means no rule matched. */
function isIgnoredPattern(pattern: Buffer): boolean {
  return pattern.length > 0 && pattern[0] !== 0x21;
}
