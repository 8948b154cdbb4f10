import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { arm, check, resolveSettings, type SettingsInput } from '../../src/envelope/index.js';
import type { Envelope } from '../../src/envelope/state/store.js';
import type { CheckResult } from '../../src/envelope/check.js';

/**
 * Helpers for envelope tests on real git repositories. Each test file gets its own HOME (no
 * global git config, no global excludes) so the machine's configuration cannot leak in.
 */

const root = mkdtempSync(join(tmpdir(), 'cordon-envelope-test-'));
const home = join(root, 'home');
mkdirSync(home, { recursive: true });
Object.assign(process.env, {
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Cordon Test',
  GIT_AUTHOR_EMAIL: 'test@cordon.invalid',
  GIT_COMMITTER_NAME: 'Cordon Test',
  GIT_COMMITTER_EMAIL: 'test@cordon.invalid',
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The per-file isolated HOME. */
export const TEST_HOME = home;

let counter = 0;
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temp directory removed after the test. */
export function tempDir(name = 'dir'): string {
  const dir = join(root, `${name}-${++counter}`);
  mkdirSync(dir, { recursive: true });
  made.push(dir);
  return dir;
}

/** Runs git in `cwd` (throws on failure) and returns stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Writes files (path → content) under `dir`. Paths may be Buffers joined by the caller. */
export function write(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** A real repository with `files` committed (default: the reference's `src/app.py` + README). */
export function repo(files: Record<string, string | Buffer> = { 'src/app.py': 'print("hello")\n', 'README.md': '# demo\n' }): string {
  const dir = tempDir('repo');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'commit.gpgsign', 'false');
  write(dir, files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

/** Commits everything in `dir` with `message`. */
export function commitAll(dir: string, message = 'change'): void {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
}

/** Arms `dir` with `input` layered over the defaults. */
export function armWith(dir: string, input: SettingsInput, label = 'test envelope'): Promise<Envelope> {
  return arm({ label, settings: resolveSettings(input) }, { repo: dir });
}

/** Runs `check` on `dir`. */
export function checkIn(dir: string): Promise<CheckResult> {
  return check({ repo: dir });
}

/** Violation codes of a check result. */
export function codes(result: CheckResult): string[] {
  return result.audit.violations.map((v) => v.code);
}
