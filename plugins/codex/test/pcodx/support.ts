import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { REPO_ROOT, linkPluginRoots, linkPlugins, runCordon, type RunOptions, type RunResult, type Sandbox } from '../../../../test/support/cli.js';

/** The fixture plugin that taps `compact` (refuses FORBIDDEN, stamps " [guarded]"). */
export const GUARD_PLUGIN = join(REPO_ROOT, 'plugins/codex/test/pcodx/fixtures/compact-guard');

/** Links the codex plugin (and optionally the guard fixture) into the sandbox's data dir. */
export function linkCodex(box: Sandbox, withGuard = false): void {
  if (!withGuard) return linkPlugins(box.dataDir, ['codex']);
  const roots = [{ name: '@cordon/codex', root: join(REPO_ROOT, 'plugins/codex') }];
  roots.push({ name: 'cordon-plugin-compact-guard', root: GUARD_PLUGIN });
  linkPluginRoots(box.dataDir, roots);
}

/** Runs `cordon pcodx …` in the sandbox with `PCODX_DB` pointing at `db` (unless env overrides it). */
export function pcodx(box: Sandbox, db: string | undefined, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const env = { ...box.env, ...(db ? { PCODX_DB: db } : {}), ...options.env };
  return runCordon(['pcodx', ...args], { ...options, env });
}

/** Rows of a ledger table read straight from SQLite. */
export function tableRows(db: string, query: string): Array<Record<string, unknown>> {
  const raw = new Database(db, { readonly: true });
  try {
    return raw.prepare(query).all() as Array<Record<string, unknown>>;
  } finally {
    raw.close();
  }
}

/** sha256 of a file. */
export function sha(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
