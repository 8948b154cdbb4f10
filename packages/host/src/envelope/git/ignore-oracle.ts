import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { pathBytes, pathText } from '../path-text.js';
import type { GitInvocation } from './run-git.js';
import { isIgnoredAnswer } from './parse.js';

/**
 * Answers "would git ignore this path?" through one long-lived
 * `git check-ignore --stdin -z -v -n --no-index` process (git flushes after every answer, so
 * queries can be pipelined). Which rules apply is decided by the invocation: the live work
 * tree at arm time, or a scratch tree holding only the arm-time `.gitignore` files at check
 * time. Directory paths are asked with a trailing `/` so directory-only patterns apply.
 */
export class IgnoreOracle {
  #child: ChildProcessWithoutNullStreams | undefined;
  #fields: string[] = [];
  #partial: Buffer | undefined;
  #waiting: Array<{ resolve: (ignored: boolean) => void; reject: (error: unknown) => void }> = [];
  #failure: CordonError | undefined;
  #stderr = '';

  constructor(private readonly inv: GitInvocation) {}

  /** Answers for `paths` (repo-relative text form; directories end in `/`), in order. */
  async ignored(paths: readonly string[]): Promise<boolean[]> {
    if (paths.length === 0) return [];
    const child = this.#start();
    const answers = paths.map(
      () =>
        new Promise<boolean>((resolve, reject) => {
          if (this.#failure) reject(this.#failure);
          else this.#waiting.push({ resolve, reject });
        }),
    );
    child.stdin.write(Buffer.concat(paths.flatMap((p) => [pathBytes(p), Buffer.of(0)])));
    return Promise.all(answers);
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
    const child = spawn(this.inv.gitBinary ?? 'git', ['check-ignore', '--stdin', '-z', '-v', '-n', '--no-index'], {
      cwd: this.inv.cwd,
      env: this.inv.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.on('error', () => undefined);
    child.stdout.on('data', (chunk: Buffer) => this.#onData(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (this.#stderr.length < 4096) this.#stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => this.#fail(`cannot start git check-ignore: ${error.message}`));
    child.on('close', (code) => {
      if (this.#waiting.length > 0) this.#fail(`git check-ignore exited ${code}${this.#stderr ? `: ${this.#stderr.trim()}` : ''}`);
    });
    this.#child = child;
    return child;
  }

  #onData(chunk: Buffer): void {
    const data = this.#partial ? Buffer.concat([this.#partial, chunk]) : chunk;
    let start = 0;
    for (let nul = data.indexOf(0); nul !== -1; nul = data.indexOf(0, start)) {
      this.#fields.push(pathText(data.subarray(start, nul)));
      start = nul + 1;
      if (this.#fields.length === 4) {
        const fields = this.#fields;
        this.#fields = [];
        this.#waiting.shift()?.resolve(isIgnoredAnswer(fields));
      }
    }
    this.#partial = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
  }

  #fail(message: string): void {
    this.#failure ??= new CordonError(ERROR_CODES.REPO_ERROR, message);
    for (const w of this.#waiting.splice(0)) w.reject(this.#failure);
  }
}
