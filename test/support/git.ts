import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Runs git in `cwd` and returns stdout (throws on a non-zero exit). */
export function git(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * Creates a real git repository at `dir` with `files` (path → content) committed as the
 * first commit, identity and default branch set locally so tests do not depend on the machine.
 */
export function makeRepo(dir: string, files: Record<string, string | Buffer> = { 'README.md': '# test\n' }, env: NodeJS.ProcessEnv = process.env): string {
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main'], env);
  git(dir, ['config', 'user.name', 'Cordon Test'], env);
  git(dir, ['config', 'user.email', 'test@cordon.invalid'], env);
  git(dir, ['config', 'commit.gpgsign', 'false'], env);
  writeFiles(dir, files);
  git(dir, ['add', '-A'], env);
  git(dir, ['commit', '-q', '-m', 'initial'], env);
  return dir;
}

/** Writes `files` (path → content) under `dir`, creating parent directories. */
export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}
