import { loadHostDirect, planHostLoad } from '../bus/load-host.js';
import { warnDataPackage, warnPluginFailures } from '../cli/plugin-warnings.js';
import { endLike } from '../process/end-like.js';
import { commandUsageProblem, controlRun, printRecord, workingDirectory } from './run.js';
import { parseHint } from './tiers.js';
import { mark } from '../util/timeline.js';

/** The flags the fast route of `cordon control run` takes. */
export interface FastControlRunArgs {
  readonly hint?: string;
  readonly session?: string;
  readonly json: boolean;
  readonly verbose: boolean;
  /** The command after `--`. */
  readonly argv: readonly string[];
}

/**
 * The fast route's grammar for the arguments after `control run`: `--hint V` / `--hint=V` (a
 * valid hint), `--session ID` / `--session=ID`, `--json`, `--verbose`, each at most once, then `--` and a command
 * ({@link commandUsageProblem}: one whose program name is not empty). Anything else (help, a bad
 * hint, no `--`, `-- ''`) returns `undefined`, and oclif parses it, so refusals have one renderer.
 */
export function parseFastControlRunArgs(args: readonly string[]): FastControlRunArgs | undefined {
  let hint: string | undefined;
  let session: string | undefined;
  let json = false;
  let verbose = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      const argv = args.slice(i + 1);
      if (commandUsageProblem(argv) !== undefined) return undefined;
      if (hint !== undefined && (hint.trim() === '' || parseHint(hint).unknown.length)) return undefined;
      if (session !== undefined && session === '') return undefined;
      return { ...(hint !== undefined ? { hint } : {}), ...(session !== undefined ? { session } : {}), json, verbose, argv };
    }
    if (arg === '--json' && !json) json = true;
    else if (arg === '--verbose' && !verbose) verbose = true;
    else if (arg === '--hint' && hint === undefined && i + 1 < args.length) hint = args[++i];
    else if (arg.startsWith('--hint=') && hint === undefined) hint = arg.slice('--hint='.length);
    else if (arg === '--session' && session === undefined && i + 1 < args.length) session = args[++i];
    else if (arg.startsWith('--session=') && session === undefined) session = arg.slice('--session='.length);
    else return undefined;
  }
  return undefined;
}

/**
 * `cordon control run` without oclif (bin/run.cjs routes the plain form here): an agent may run
 * every shell tool call through it, and oclif's start-up would be most of the added time
 * (`npm run bench:control`). With a current plugin index only the plugins tapping `enforce`
 * load. Same library call, output and exit status as `commands/control/run.ts`. A damaged
 * `<data>/package.json` is one warning on stderr, and the command runs all the same. Resolves
 * `'fallback'`, with nothing printed and nothing run, when the plugins cannot be loaded (a
 * directory variable cordon refuses, util/paths.ts): the caller then runs the command through
 * oclif, which reports it as every command does.
 */
export async function fastControlRun(args: FastControlRunArgs, env: NodeJS.ProcessEnv = process.env): Promise<'done' | 'fallback'> {
  mark('bundle loaded');
  let host;
  let plan;
  try {
    plan = planHostLoad(env);
    host = warnPluginFailures(await loadHostDirect(env, { needs: { hooks: ['enforce'] }, plan }));
  } catch {
    return 'fallback';
  }
  // A damaged <data>/package.json is said once, and the command still runs (without its plugins).
  warnDataPackage(host.paths.dataDir, plan);
  mark('plugins loaded');
  const outcome = await controlRun({
    argv: args.argv,
    ...(args.hint !== undefined ? { hint: args.hint } : {}),
    ...(args.session !== undefined ? { session: args.session } : {}),
    cwd: workingDirectory(),
    env,
    json: args.json,
    hooks: host.hooks,
    dataDir: host.paths.dataDir,
    log: host.log,
    verbose: args.verbose,
  });
  if (args.json) printRecord(outcome);
  endLike({ code: outcome.record.signal ? null : outcome.exitCode, signal: outcome.record.signal });
  return 'done';
}
