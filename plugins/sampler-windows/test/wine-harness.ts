import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wineDir } from '../../../test/support/wine.js';

// Shared by the Wine suites of @cordon/sampler-windows: Wine's files and environment (from
// test/support/wine.ts, which the cmd.exe quoting suite and bench:sampler share) and the preparation
// (scripts/install-wine.sh, quick once done).

export const repo = fileURLToPath(new URL('../../../', import.meta.url));
export { nodeExe, wineDir, wineEnv, winPath } from '../../../test/support/wine.js';
export const dist = join(repo, 'plugins/sampler-windows/dist');
export const MiB = 1024 * 1024;

/** Runs the Wine preparation; returns why Wine cannot be used here, or undefined when ready. */
export function prepare(): string | undefined {
  const r = spawnSync('bash', [join(repo, 'scripts/install-wine.sh')], { stdio: 'inherit', env: { ...process.env, CORDON_WINE_DIR: wineDir }, timeout: 100_000 });
  const reason = join(wineDir, 'unavailable');
  if (existsSync(reason)) return readFileSync(reason, 'utf8').trim();
  if (r.status !== 0) throw new Error(`scripts/install-wine.sh failed (status ${r.status}, ${r.error?.message ?? r.signal ?? ''})`);
  return undefined;
}

