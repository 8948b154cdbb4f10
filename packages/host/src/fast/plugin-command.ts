import { isAbsolute, join, relative, resolve } from 'node:path';
import type { FastCommandApi, RunFastCommand } from '@cordon/plugin-api';
import { blockingFileKind } from '../io/safe-read.js';
import { findPluginPackages, type PluginPackage } from '../plugins/discover.js';
import { nodeModule } from '../util/builtins.js';
import { HOST_ROOT } from '../util/host-root.js';
import { resolvePaths } from '../util/paths.js';

/**
 * The fast route of plugin commands that only read or record in the ledger (`cordon pcodx show`,
 * `ids`, `turn`): `bin/run.cjs` sends `cordon <topic> <command> …` here before oclif is loaded.
 * The plugin that declares the command in its package.json (`cordon.fastCommands`, see
 * `RunFastCommand` of the plugin api) runs it with its own code, the same code its oclif command
 * runs, handed the ledger service without the plugin host: a `cordon pcodx show` of a small
 * ledger then costs little more than Node's start (`npm run bench:ledger`, cold-process rows).
 *
 * Resolves `'fallback'`, with nothing done, when no installed or linked plugin declares the
 * command, when its module cannot be loaded or hands the command back, and under
 * `CORDON_CONTENT_TYPE` (oclif's switch to JSON output), and when cordon's directories are
 * refused (util/paths.ts): the caller then runs the command through oclif, which also reports a
 * command that does not exist and a bad directory variable.
 */
export async function fastPluginCommand(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<'done' | 'fallback'> {
  if (env.CORDON_CONTENT_TYPE !== undefined || args.length < 2) return 'fallback';
  let dataDir: string;
  try {
    ({ dataDir } = resolvePaths(env));
  } catch {
    // A directory variable cordon refuses: oclif reports it.
    return 'fallback';
  }
  const packages = findPluginPackages(HOST_ROOT, dataDir);
  // `topic command …`, else the topic's own command (`pcodx --db D show`: flags before the command).
  let id = `${args[0]}:${args[1]}`;
  let pkg = declaringPackage(packages, id);
  if (!pkg && args[1]!.startsWith('-')) pkg = declaringPackage(packages, (id = args[0]!));
  if (!pkg) return 'fallback';
  let run: RunFastCommand | undefined;
  let api: FastCommandApi;
  try {
    run = (loadModule(pkg.file, `${pkg.name.replace(/[^a-z0-9-]/gi, '_')}-fast.cjs`) as { runFastCommand?: RunFastCommand }).runFastCommand;
    // The ledger's own bundle (src/fast/ledger-api.ts), only now that a plugin runs the command.
    api = (loadModule(join(HOST_ROOT, 'dist', 'fast', 'ledger-api.cjs'), 'ledger-api.cjs') as { fastCommandApi: () => FastCommandApi }).fastCommandApi();
  } catch {
    return 'fallback';
  }
  if (typeof run !== 'function') return 'fallback';
  return run(id, args.slice(id.split(':').length), api);
}

/** The plugin package that declares `id` in `cordon.fastCommands`, with its module's absolute path (inside the package). */
function declaringPackage(packages: readonly PluginPackage[], id: string): { name: string; file: string } | undefined {
  for (const pkg of packages) {
    const declared = (pkg.pjson as { cordon?: { fastCommands?: { module?: unknown; commands?: unknown } } }).cordon?.fastCommands;
    if (!declared || typeof declared.module !== 'string' || !Array.isArray(declared.commands) || !declared.commands.includes(id)) continue;
    const file = resolve(pkg.root, declared.module);
    const inside = relative(pkg.root, file);
    if (!file.endsWith('.cjs') || inside.startsWith('..') || isAbsolute(inside)) continue;
    return { name: pkg.name, file };
  }
  return undefined;
}

/**
 * Loads the plugin's CommonJS module through `bin/run.cjs`'s V8 code cache when it handed one
 * over (`globalThis[Symbol.for('cordon.requireCached')]`), else with plain `require`. Throws,
 * loading nothing, when `file` is a FIFO, socket or device (io/safe-read.ts `blockingFileKind`).
 */
function loadModule(file: string, cacheName: string): unknown {
  // A FIFO or device here would hold the command (Node's loader opens it blocking): oclif runs it.
  const kind = blockingFileKind(file);
  if (kind !== undefined) throw new Error(`${file} is not a regular file (${kind})`);
  const cached = (globalThis as Record<symbol, unknown>)[Symbol.for('cordon.requireCached')] as ((file: string, cacheName: string) => unknown) | undefined;
  if (cached) return cached(file, cacheName);
  // Inside the bundle, its own `require`; in the ES module build, one from createRequire.
  return (typeof require === 'function' ? require : nodeModule().createRequire(import.meta.url))(file);
}
