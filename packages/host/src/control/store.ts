import { join } from 'node:path';
import type { Kysely, Migration } from 'kysely';
import { appendLine, ensurePrivateDir, rotateWhenFull } from '../io/index.js';

/** File name of the control database, beside `telemetry.sqlite3` in the data directory. */
export const CONTROL_DB_FILE = 'control.sqlite3';

/** Tables of the control database. */
export interface ControlSchema {
  /** One row per normalised command that got a limit warning. */
  warnings: { command: string; count: number; first_at: number; last_at: number };
}

/** The control schema's versions (kysely `Migrator`; append, never edit a released one). */
export const CONTROL_MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '0001_warnings': {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('warnings')
        .addColumn('command', 'text', (c) => c.primaryKey())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('first_at', 'double precision', (c) => c.notNull())
        .addColumn('last_at', 'double precision', (c) => c.notNull())
        .execute();
    },
  },
});

/**
 * Counts one more limit warning for `command` in `<dataDir>/control.sqlite3` and returns the new
 * count (1 for the first). One upsert statement, so concurrent `control run`s in other
 * processes never lose a count (the seed kept it per process and never escalated: a gap in
 * uncoalesced/cordon). Throws `CORDON_DB_ERROR` when the database cannot be opened.
 */
export async function countWarning(dataDir: string, command: string, now: number = Date.now()): Promise<number> {
  // Loaded only when a run warns: the fast route of `control run` never pays for SQLite otherwise.
  const [{ sql }, { openMigratedDb }] = await Promise.all([import('kysely'), import('../telemetry/reduce/db/open.js')]);
  const { db, close } = await openMigratedDb<ControlSchema>(join(dataDir, CONTROL_DB_FILE), CONTROL_MIGRATIONS, 'control');
  try {
    const row = await db
      .insertInto('warnings')
      .values({ command, count: 1, first_at: now, last_at: now })
      .onConflict((oc) => oc.column('command').doUpdateSet({ count: sql`count + 1`, last_at: now }))
      .returning('count')
      .executeTakeFirstOrThrow();
    return row.count;
  } finally {
    await close();
  }
}

/** Where every `control run` is recorded: `<dataDir>/control/runs.jsonl`. */
export function runsFile(dataDir: string): string {
  return join(dataDir, 'control', 'runs.jsonl');
}

/**
 * One run as recorded (tier, limit, peak, stall, events, exit), one JSON line in
 * {@link runsFile}. Bytes, ms, epoch-ms `t`; `null` where nothing was measured (unguarded).
 */
export interface RunRecord {
  /** When the run ended, epoch ms. */
  readonly t: number;
  /** When the command was started, epoch ms. */
  readonly start_t: number;
  /** The agent session whose tool call this run is (`--session`, written by `cordon control guard`'s rewrite); `null` for a run by hand. */
  readonly session_id: string | null;
  /**
   * The command and its arguments, secrets as `***`, each cut to 2,000 characters and at most
   * 8,000 together (output/recorded-command.ts `recordedArgv`).
   */
  readonly argv: readonly string[];
  /** Arguments left out at the end of {@link argv} past its 8,000 characters; absent when none were. */
  readonly argv_omitted?: number;
  /** {@link argv} joined with white space collapsed (what warnings are counted by), from every argument, cut to 2,000 characters. */
  readonly command: string;
  readonly cwd: string;
  /** `--hint` or `AGENT_RESOURCE_HINT` as given, redacted and cut to 2,000 characters; null when neither was. */
  readonly hint: string | null;
  readonly backend: string | null;
  readonly enforced: boolean;
  readonly domain: string | null;
  /** Where the domain was placed (`root-cgroup`, `agent-cgroup`, `agent-cgroup-leaf`; see GuardPlacement), `null` unguarded. */
  readonly placement: string | null;
  readonly tier: string;
  readonly final_tier: string;
  readonly limit_bytes: number | null;
  readonly ram_bytes: number;
  readonly cpu_weight: number;
  readonly peak_bytes: number | null;
  readonly peak_source: string | null;
  /** PSI memory `full` stall, ms; `null` without PSI (or unguarded). */
  readonly stall_full_ms: number | null;
  /** What the note and the stall policy went by: `memory.pressure` (PSI) or `memory.events` (no PSI). */
  readonly stall_source: string | null;
  /** Time held over memory.high by the `memory.events` estimate, ms. */
  readonly throttled_ms: number | null;
  readonly stall_some_ms: number | null;
  readonly cpu_stall_some_ms: number | null;
  readonly events: Readonly<Record<string, number>>;
  readonly cpu_stat: Readonly<Record<string, number>>;
  readonly frozen_count: number;
  readonly frozen_ms: number;
  readonly escalations: readonly unknown[];
  readonly wall_ms: number;
  readonly exit_code: number;
  readonly signal: string | null;
  readonly removed: boolean | null;
  /** Processes the command left running that cordon ended with the call: pid, and the command line redacted as an argv, escaped and cut to 200 characters (control/ended.ts). */
  readonly ended: ReadonlyArray<{ readonly pid: number; readonly command: string }>;
  readonly warned: boolean;
  readonly warning_number: number | null;
}

/**
 * Size in bytes at which {@link runsFile} becomes `runs.jsonl.1` (replacing the one before;
 * io/rotate.ts): about 20,000 records each, so `cordon reduce`, which reads both to join guarded
 * calls to their runs (control/guard-join.ts), reads at most about twice this.
 */
export const RUNS_ROTATE_BYTES = 16 * 2 ** 20;

/** Appends `record` to {@link runsFile} (whole line, 0600, owner-only directory), rotating it when full ({@link RUNS_ROTATE_BYTES}). */
export function recordRun(dataDir: string, record: RunRecord): void {
  ensurePrivateDir(join(dataDir, 'control'));
  const file = runsFile(dataDir);
  rotateWhenFull(file, RUNS_ROTATE_BYTES);
  appendLine(file, `${JSON.stringify(record)}\n`);
}
