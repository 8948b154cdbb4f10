import { dirname } from 'node:path';
import { nodeModule } from './builtins.js';
import { HOST_ROOT } from './host-root.js';

/**
 * When `error` says better-sqlite3's native addon cannot load, one line that says so and what to
 * run, instead of `bindings`' list of a dozen paths it tried; `undefined` for any other error.
 * Recognised: the addon missing (`Could not locate the bindings file`: its install script did not
 * run or failed), built for another Node.js (`NODE_MODULE_VERSION`, `ERR_DLOPEN_FAILED`), and the
 * package itself missing. The remedy names the directory to run it in: where better-sqlite3 is
 * installed, else cordon's own installation.
 */
export function sqliteDriverProblem(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  let what: string;
  if (/Could not locate the bindings file/.test(message)) what = 'its native addon was never built (its install script did not run, or failed)';
  else if (/NODE_MODULE_VERSION|was compiled against a different Node\.js version/.test(message) || code === 'ERR_DLOPEN_FAILED') what = `its native addon was built for another Node.js (${message.split('\n')[0]!.slice(0, 200)})`;
  else if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' ? /better-sqlite3/.test(message) : false) what = 'the package is not installed';
  else return undefined;
  return `better-sqlite3, the SQLite driver, cannot load under Node.js ${process.version}: ${what}; run \`npm rebuild better-sqlite3\` in ${installDir()} (it downloads a prebuilt addon, or compiles one with python3, make and a C++ compiler), or reinstall: \`npm install -g @cordon/host --allow-scripts=better-sqlite3\``;
}

/** The directory `npm rebuild` must run in: the one whose node_modules holds better-sqlite3. */
function installDir(): string {
  try {
    const pkg = nodeModule().createRequire(import.meta.url).resolve('better-sqlite3/package.json');
    // …/node_modules/better-sqlite3/package.json → the directory holding node_modules.
    return dirname(dirname(dirname(pkg)));
  } catch {
    return HOST_ROOT.replace(/[\\/]$/, '');
  }
}
