import { writeOutput } from '@cordon/plugin-api';
import { loadHostDirect } from '../bus/load-host.js';
import { warnPluginFailures } from '../cli/plugin-warnings.js';
import { check } from '../envelope/check.js';
import { renderAudit } from '../envelope/render.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { errorDocument, errorText } from '../output/error-text.js';
import { enableStatus } from '../output/status.js';
import { haltIfInterrupted } from '../process/interrupt.js';
import { mark } from '../util/timeline.js';
import { parseRepoJsonArgs } from './repo-args.js';
import { shownJson } from '../output/json-text.js';

/** Options of {@link fastCheck}: the only flags the fast route takes. */
export interface FastCheckOptions {
  /** `--repo`: any directory inside the work tree (default: the current directory). */
  readonly repo?: string;
  /** `--json`: the audit record as JSON instead of the human verdict. */
  readonly json: boolean;
  /** Environment for plugin discovery and verifiers (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * `cordon check [--repo PATH] [--json]` without oclif, for the plain form CI jobs and agent loops
 * repeat (`bin/run.cjs` routes only that form here): oclif's start-up alone is about 0.1 s, a third
 * of the bare git commands on a 100,000-file repository (`npm run bench:envelope`).
 *
 * Same library calls, output and exit code as `commands/check.ts` on success (0 accepted,
 * 3 rejected; plugin failures warned on stderr). With a current plugin index only the plugins
 * tapping `audit` load (the only hook a check fires). Anything thrown before the audit, a refusal
 * included, resolves `'fallback'` with nothing printed to stdout: the caller then runs the command
 * through oclif, so refusals and errors have one renderer (a refused check changes nothing, so
 * re-running it is safe). A verdict that could not be saved (`CORDON_STATE_WRITE`) is printed
 * here with exit 2, never re-run: its verifiers have run once already.
 */
export async function fastCheck(options: FastCheckOptions): Promise<'done' | 'fallback'> {
  mark('bundle loaded');
  const env = options.env ?? process.env;
  // The audit calls this once its git commands run (finding and importing plugins is
  // synchronous work the diff should not wait for) and awaits it only to fire `audit`.
  // Plugins start loading while git locates the repository; their warnings are printed only
  // once the audit asks for them (a refused check goes to oclif, which prints its own).
  let loading: ReturnType<typeof loadHostDirect> | undefined;
  const load = () => (loading ??= loadHostDirect(env, { needs: { hooks: ['audit'] } }));
  const hooks = async () => {
    const host = warnPluginFailures(await load());
    mark('plugins loaded');
    return host.hooks;
  };
  enableStatus({ json: options.json });
  try {
    const whileLocating = () => void load().catch(() => undefined);
    const { audit } = await check({ repo: options.repo, hooks, env, whileLocating });
    // The verdict's exit code first: a reader that closes the pipe early must not change it.
    process.exitCode = audit.passed ? 0 : 3;
    writeOutput(1, options.json ? `${shownJson(audit, 2)}\n` : `${renderAudit(audit)}\n`);
    mark('printed');
    return 'done';
  } catch (error) {
    // Failed because an interrupt ended git or a verifier: no fallback to oclif, which would
    // check again; the process ends by the signal once the interrupt's cleanups have run.
    await haltIfInterrupted();
    // The verifiers ran and only saving the verdict failed: running the command again through
    // oclif would run them a second time, so this error is printed here.
    if (error instanceof CordonError && error.code === ERROR_CODES.STATE_WRITE) {
      process.exitCode = error.exit;
      printError(error, options.json);
      return 'done';
    }
    return 'fallback';
  }
}

/**
 * A `CordonError` as the oclif command prints it: under `--json` `{"error": {code, details,
 * message}}` on stdout, otherwise `Error: <message>` and `Code: <code>` on stderr.
 */
function printError(error: CordonError, json: boolean): void {
  if (json) writeOutput(1, `${shownJson(errorDocument(error), 2)}\n`);
  else writeOutput(2, errorText(error.message, error.code));
}

/**
 * The fast route's argument grammar (fast/repo-args.ts): `--json` and `--repo PATH` /
 * `--repo=PATH`, each at most once, in any order; `undefined` for anything else (help, `--base`,
 * policy flags, unknown tokens), which oclif then parses.
 */
export function parseFastCheckArgs(args: readonly string[]): Omit<FastCheckOptions, 'env'> | undefined {
  return parseRepoJsonArgs(args);
}
