import type BetterSqlite3 from 'better-sqlite3';
import { dbError } from './errors.js';
import { LEDGER_SCHEMA_VERSION } from './migrations.js';

/**
 * What an SQLite file holds, as far as opening it as a ledger goes:
 * - `empty`: no tables (a new file);
 * - `cordon`: cordon's ledger at schema `version` (1 up to {@link LEDGER_SCHEMA_VERSION});
 * - `reference`: a ledger the reference pcodx (SichangHe/partial_compact_codex, Rust) wrote in
 *   its schema version 1, which cordon rebuilds into its own schema (`reference.ts`).
 */
export type LedgerLayout = { readonly kind: 'empty' } | { readonly kind: 'cordon'; readonly version: number } | { readonly kind: 'reference' };

/**
 * Columns of the reference pcodx's schema version 1 (its `src/storage.rs`, `migrate` and the
 * migrations after it, at commit cc493c2 of github.com/SichangHe/partial_compact_codex). Both
 * write `schema_meta.schema_version = '1'`; the reference's file also has `session_write_order`
 * and lacks cordon's `sessions.last_compaction_seq` and `compactions.superseded_by`.
 */
const REFERENCE_TABLES: Readonly<Record<string, readonly string[]>> = {
  schema_meta: ['key', 'value'],
  sessions: ['id', 'cwd', 'created_at_ms', 'updated_at_ms', 'updated_order', 'usage_correlation_id', 'upstream_session_id', 'kv_cache_boundary'],
  session_write_order: ['seq'],
  messages: ['id', 'session_id', 'seq', 'role', 'text', 'source', 'created_at_ms', 'is_human_prompt', 'preserve_warning'],
  compactions: ['id', 'session_id', 'seq', 'from_msg_id', 'to_msg_id', 'from_seq', 'to_seq', 'summary', 'created_at_ms', 'n_messages_replaced'],
};

/** Columns of cordon's ledger, the same at schema versions 1 and 2 (`migrations.ts`). */
const CORDON_TABLES: Readonly<Record<string, readonly string[]>> = {
  schema_meta: ['key', 'value'],
  sessions: [...REFERENCE_TABLES.sessions!, 'last_compaction_seq'],
  messages: REFERENCE_TABLES.messages!,
  compactions: [...REFERENCE_TABLES.compactions!, 'superseded_by'],
};

const LEFT_UNCHANGED = 'it was left unchanged';

/**
 * Reads which {@link LedgerLayout} the file at `path` has; reads only. Refuses, with
 * `CORDON_DB_ERROR` naming the file, anything it could not use as it is or rebuild whole: tables
 * without `schema_meta` (not a ledger), a missing or non-numeric `schema_version`, a newer cordon
 * version, and tables or columns that are not exactly those of cordon's schema or of the
 * reference's schema version 1 (for example a reference file from before its later columns,
 * which the reference itself upgrades when it opens the file).
 */
export function inspectLayout(path: string, raw: BetterSqlite3.Database): LedgerLayout {
  const tables = raw.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`).pluck().all() as string[];
  if (tables.length === 0) return { kind: 'empty' };
  if (!tables.includes('schema_meta')) {
    throw dbError(path, `${path} is an SQLite database but not a pcodx ledger (it has no schema_meta table); ${LEFT_UNCHANGED}: point --db / PCODX_DB at another file`);
  }
  const value = raw.prepare(`select value from schema_meta where key = 'schema_version'`).pluck().get() as unknown;
  const version = typeof value === 'string' && /^[1-9]\d{0,8}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(version)) {
    throw dbError(path, `ledger database ${path} has no valid schema_version (found ${JSON.stringify(value ?? null)}); ${LEFT_UNCHANGED}`);
  }
  if (tables.includes('session_write_order')) {
    const differences = differ(raw, tables, REFERENCE_TABLES);
    if (version !== 1 || differences.length > 0) {
      throw dbError(
        path,
        `ledger database ${path} looks like one the reference pcodx wrote, but not in its schema version 1 layout, the one this cordon upgrades (${version !== 1 ? `schema_version ${version}` : differences.join('; ')}); ${LEFT_UNCHANGED}: open it once with the current reference pcodx (it brings older layouts to that one), or point --db / PCODX_DB at another file`,
      );
    }
    return { kind: 'reference' };
  }
  if (version > LEDGER_SCHEMA_VERSION) {
    throw dbError(path, `ledger database ${path} has schema version ${version}, newer than this cordon understands (${LEDGER_SCHEMA_VERSION}); ${LEFT_UNCHANGED}: upgrade cordon or use another --db`);
  }
  const differences = differ(raw, tables, CORDON_TABLES);
  if (differences.length > 0) {
    throw dbError(path, `ledger database ${path} says schema version ${version}, but its tables are not those of that version (${differences.join('; ')}); ${LEFT_UNCHANGED}: point --db / PCODX_DB at another file`);
  }
  return { kind: 'cordon', version };
}

/** How the file's tables and columns differ from `expected`, one phrase per difference. */
function differ(raw: BetterSqlite3.Database, tables: readonly string[], expected: Readonly<Record<string, readonly string[]>>): string[] {
  const out: string[] = [];
  for (const name of tables) if (!(name in expected)) out.push(`unexpected table ${JSON.stringify(name)}`);
  for (const [name, columns] of Object.entries(expected)) {
    if (!tables.includes(name)) {
      out.push(`no table ${name}`);
      continue;
    }
    const have = (raw.prepare(`select name from pragma_table_info(?)`).pluck().all(name) as string[]).sort();
    const missing = columns.filter((c) => !have.includes(c));
    const extra = have.filter((c) => !columns.includes(c));
    if (missing.length > 0) out.push(`${name} has no column ${missing.join(', ')}`);
    if (extra.length > 0) out.push(`${name} has an unexpected column ${extra.map((c) => JSON.stringify(c)).join(', ')}`);
  }
  return out;
}
