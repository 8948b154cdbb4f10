import { join } from 'node:path';
import { TELEMETRY_DB_FILE } from '../telemetry/reduce/db/names.js';
import { isPostgresUrl, resolveDbTarget } from '../telemetry/reduce/db/target.js';
import { reduceJsonl, reduceReport, reduceSkippedLines, reduceTextLines } from '../telemetry/reduce/output.js';
import { reduce } from '../telemetry/reduce/reduce.js';
import { resolvePaths } from '../util/paths.js';
import { shownJson } from '../output/json-text.js';

/** The flags the fast route of `cordon reduce` takes. */
export interface FastReduceArgs {
  readonly session?: string;
  readonly all: boolean;
  readonly json: boolean;
  readonly jsonl: boolean;
  readonly db?: string;
}

/**
 * The fast route's grammar for the arguments after `reduce`: `--session ID` / `--session=ID`,
 * `--all`, `--json`, `--jsonl`, `--db V` / `--db=V`, each at most once, in any order. Returns
 * `undefined`, so that oclif parses and refuses, for anything else: help, unknown tokens, a
 * value that is empty or looks like a flag, `--session` with `--all`, `--json` with `--jsonl`,
 * and any run under `CORDON_CONTENT_TYPE` (oclif's switch to JSON output).
 */
export function parseFastReduceArgs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): FastReduceArgs | undefined {
  if (env.CORDON_CONTENT_TYPE !== undefined) return undefined;
  let session: string | undefined;
  let db: string | undefined;
  let all = false;
  let json = false;
  let jsonl = false;
  const value = (v: string | undefined): string | undefined => (v === undefined || v === '' || v.startsWith('-') ? undefined : v);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--all' && !all) all = true;
    else if (arg === '--json' && !json) json = true;
    else if (arg === '--jsonl' && !jsonl) jsonl = true;
    else if (arg === '--session' && session === undefined && value(args[i + 1])) session = args[++i];
    else if (arg.startsWith('--session=') && session === undefined && value(arg.slice('--session='.length))) session = arg.slice('--session='.length);
    else if (arg === '--db' && db === undefined && value(args[i + 1])) db = args[++i];
    else if (arg.startsWith('--db=') && db === undefined && value(arg.slice('--db='.length))) db = arg.slice('--db='.length);
    else return undefined;
  }
  if ((session !== undefined && all) || (json && jsonl)) return undefined;
  return { ...(session !== undefined ? { session } : {}), all, json, jsonl, ...(db !== undefined ? { db } : {}) };
}

/**
 * `cordon reduce` without oclif (bin/run.cjs routes the plain forms here): oclif's start-up and
 * the plugin host are most of a small session's reduce, and reduce needs neither (no plugin
 * hook fires; only the data directory). Same library call, output and exit status as
 * `commands/reduce.ts`. A PostgreSQL store goes through oclif at once; a database file that
 * still lacks a migration (the first reduce: migrating loads kysely, which this bundle cannot
 * import when it runs from V8's code cache) goes through oclif too. Anything thrown (no such
 * session, a database refusal) resolves `'fallback'` with nothing printed: the caller then runs
 * the command through oclif, so errors have one renderer (the error repeats there; storing a
 * session again replaces its rows, so a session stored before the error is left as it was).
 */
export async function fastReduce(args: FastReduceArgs, env: NodeJS.ProcessEnv = process.env): Promise<'done' | 'fallback'> {
  let dataDir: string;
  try {
    ({ dataDir } = resolvePaths(env));
  } catch {
    // A directory variable cordon refuses: oclif reports it.
    return 'fallback';
  }
  // A PostgreSQL store needs kysely and pg, which this bundle loads only through import(): oclif
  // runs it (its connection costs more than oclif's start-up anyway).
  if (isPostgresUrl(resolveDbTarget(args.db, join(dataDir, TELEMETRY_DB_FILE), env))) return 'fallback';
  let result;
  try {
    result = await reduce({ dataDir, ...(args.session !== undefined ? { session: args.session } : {}), all: args.all, ...(args.db !== undefined ? { db: args.db } : {}), env });
  } catch {
    return 'fallback';
  }
  if (args.json) process.stdout.write(`${shownJson(reduceReport(result), 2)}\n`);
  else if (args.jsonl) {
    const { stdout, stderr } = reduceJsonl(result);
    writeAll(process.stdout, stdout);
    writeAll(process.stderr, stderr);
  } else {
    writeAll(process.stdout, reduceTextLines(result).map((line) => `${line}\n`));
    writeAll(process.stderr, reduceSkippedLines(result));
  }
  return 'done';
}

/** Writes `parts` in writes of about 64 KiB (one write per line costs a 25,000-call session dearly). */
function writeAll(stream: NodeJS.WriteStream, parts: readonly string[]): void {
  let chunk = '';
  for (const part of parts) {
    chunk += part;
    if (chunk.length >= 65536) {
      stream.write(chunk);
      chunk = '';
    }
  }
  if (chunk) stream.write(chunk);
}
