import { writeOutput } from '@cordon/plugin-api';
import { renderStatus } from '../envelope/render.js';
import { status } from '../envelope/status.js';
import { checkPaths } from '../util/paths.js';
import { parseRepoJsonArgs, type RepoJsonArgs } from './repo-args.js';
import { shownJson } from '../output/json-text.js';

/**
 * `cordon status [--repo PATH] [--json]` without oclif, for the plain form people and agent loops
 * repeat (`bin/run.cjs` routes only that form here): the oclif route loads @oclif/core and the
 * envelope's ES modules one by one, about four times the instructions of this bundle
 * (`docs/ARCHITECTURE.md` "The hot paths").
 *
 * Same library call, output and exit code as `commands/status.ts` when the envelope can be
 * shown (the report as the text of `renderStatus`, or under `--json` as pretty JSON, exit 0).
 * Anything thrown (nothing armed, a damaged state, a held lock, not a repository, a cordon
 * directory variable cordon refuses) resolves `'fallback'` with nothing printed: the caller then
 * runs the command through oclif, so refusals have one renderer. `status` takes no lock and
 * changes nothing, so running it again is safe.
 */
export async function fastStatus(options: RepoJsonArgs, env: NodeJS.ProcessEnv = process.env): Promise<'done' | 'fallback'> {
  let text: string;
  try {
    // The oclif route refuses these before anything else (cli/environment.ts prepareOclif).
    checkPaths(env);
    const report = await status(options.repo);
    text = options.json ? shownJson(report, 2) : renderStatus(report);
  } catch {
    return 'fallback';
  }
  writeOutput(1, `${text}\n`);
  return 'done';
}

/** The fast route's grammar (fast/repo-args.ts): `--json`, `--repo PATH`, each at most once. */
export function parseFastStatusArgs(args: readonly string[]): RepoJsonArgs | undefined {
  return parseRepoJsonArgs(args);
}
