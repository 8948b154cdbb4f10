import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { waitFor } from '../../../../test/support/wait.js';

/**
 * A large real repository for the scale test and `npm run bench:envelope` (100,000
 * tracked files, 5,000 changed, added, deleted and renamed files). The commit is streamed into
 * `git fast-import` (much faster than `git add` of 100,000 files), then checked out.
 */

/** Shape of the repository. */
export interface BigRepoShape {
  /** Tracked files (default 100,000), spread over directories of 100. */
  readonly files: number;
}

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  GIT_AUTHOR_NAME: 'Cordon Bench',
  GIT_AUTHOR_EMAIL: 'bench@cordon.invalid',
  GIT_COMMITTER_NAME: 'Cordon Bench',
  GIT_COMMITTER_EMAIL: 'bench@cordon.invalid',
});

/** Repo-relative path of tracked file `i`. */
export function trackedPath(i: number): string {
  return `src/d${String(Math.floor(i / 100)).padStart(4, '0')}/f${String(i).padStart(6, '0')}.txt`;
}

function content(i: number): string {
  return `file ${i}\nsecond line of ${i}\nthird line\n`;
}

/** Creates the repository at `dir` (which must not exist) with one commit on `main`, checked out. */
export async function buildBigRepo(dir: string, shape: BigRepoShape = { files: 100_000 }): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '-q', '-b', 'main');
  git('config', 'commit.gpgsign', 'false');
  const child = spawn('git', ['fast-import', '--quiet'], { cwd: dir, env: env(), stdio: ['pipe', 'ignore', 'inherit'] });
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`))));
  });
  const parts: string[] = [];
  const flush = async () => {
    const chunk = parts.splice(0).join('');
    if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r));
  };
  for (let i = 0; i < shape.files; i++) {
    const data = content(i);
    parts.push(`blob\nmark :${i + 1}\ndata ${Buffer.byteLength(data)}\n${data}\n`);
    if (parts.length >= 2000) await flush();
  }
  const message = 'big initial commit\n';
  parts.push(`commit refs/heads/main\ncommitter Cordon Bench <bench@cordon.invalid> 1700000000 +0000\ndata ${message.length}\n${message}`);
  for (let i = 0; i < shape.files; i++) {
    parts.push(`M 100644 :${i + 1} ${trackedPath(i)}\n`);
    if (parts.length >= 5000) await flush();
  }
  parts.push('\n');
  await flush();
  child.stdin.end();
  await done;
  git('reset', '-q', '--hard', 'main');
  // Refresh the index once the file-system clock has passed the second the checkout wrote it in,
  // as any later git command would, so no entry stays racy (git compares whole seconds).
  const index = join(dir, '.git', 'index');
  const probe = join(dir, '.git', 'cordon-clock-probe');
  await waitFor(() => (writeFileSync(probe, ''), Math.floor(statSync(probe).mtimeMs / 1000) > Math.floor(statSync(index).mtimeMs / 1000)), { what: 'the file-system clock to pass the second of the checkout' });
  rmSync(probe);
  git('update-index', '-q', '--refresh');
}

/** What {@link applyChanges} did, in numbers of files. */
export interface ChangeCounts {
  readonly modified: number;
  readonly added: number;
  readonly deleted: number;
  readonly renamed: number;
  /** Distinct changed paths the audit must report (a rename counts both sides). */
  readonly paths: number;
  /** Lines added and deleted, as the audit must count them. */
  readonly addedLines: number;
  readonly deletedLines: number;
}

/**
 * Touches `total` tracked files (default 5,000) of a {@link buildBigRepo} repository, a quarter
 * each modified (one line appended), deleted, renamed (plain `mv`, so a deletion plus an
 * untracked file), plus as many new untracked files.
 */
export function applyChanges(dir: string, shape: BigRepoShape = { files: 100_000 }, total = 5_000): ChangeCounts {
  const quarter = Math.floor(total / 4);
  const stride = Math.floor(shape.files / total);
  const pick = (k: number) => k * stride;
  for (let k = 0; k < quarter; k++) appendFileSync(join(dir, trackedPath(pick(k))), 'appended\n');
  for (let k = quarter; k < 2 * quarter; k++) rmSync(join(dir, trackedPath(pick(k))));
  for (let k = 2 * quarter; k < 3 * quarter; k++) renameSync(join(dir, trackedPath(pick(k))), join(dir, trackedPath(pick(k)).replace('.txt', '.moved.txt')));
  for (let k = 3 * quarter; k < 4 * quarter; k++) {
    const path = join(dir, 'src', 'added', `d${String(k % 50).padStart(2, '0')}`, `new-${k}.txt`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `new file ${k}\n`);
  }
  return {
    modified: quarter,
    deleted: quarter,
    renamed: quarter,
    added: quarter,
    paths: quarter * 5,
    addedLines: quarter * 1 + quarter * 3 + quarter * 1,
    deletedLines: quarter * 3 + quarter * 3,
  };
}
