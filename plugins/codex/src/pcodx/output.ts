import type { LedgerCompactResult, LedgerUncompactResult } from '@cordon/plugin-api';

/** Where a pcodx action prints: whole lines, a newline is added to each. */
export interface Sink {
  out(line: string): void;
  err(line: string): void;
}

/** A sink on the process streams (writes are synchronous on Linux pipes, files and TTYs). */
export const processSink: Sink = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

/** A sink that keeps lines in memory (tests, and callers that want the text). */
export function memorySink(): Sink & { readonly stdout: string[]; readonly stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => void stdout.push(l), err: (l) => void stderr.push(l) };
}

/** `visible_ids=a,b,c` (the Rust pcodx, SichangHe/partial_compact_codex). */
export const visibleIdsLine = (ids: readonly string[]): string => `visible_ids=${ids.join(',')}`;

/**
 * The `key=value` lines of a one-range compaction (the Rust pcodx, SichangHe/partial_compact_codex `compact`): `compaction_id`,
 * `n_messages_replaced`, an optional `warning`, `visible_ids`; `stored=false` closes a dry run.
 */
export function compactLines(result: LedgerCompactResult): string[] {
  const range = result.ranges[0]!;
  return [
    `session_id=${result.sessionId}`,
    `compaction_id=${range.id}`,
    `n_messages_replaced=${range.nMessagesReplaced}`,
    ...(range.warning ? [`warning=${range.warning}`] : []),
    visibleIdsLine(result.visibleIds),
    ...(result.stored ? [] : ['stored=false']),
  ];
}

/**
 * The lines of `compact-many` (the Rust pcodx, SichangHe/partial_compact_codex): counts, one `compaction=cmpN FROM..TO` per range
 * in request order, `warning[cmpN]=…` lines, `visible_ids`; `stored=false` closes a dry run.
 */
export function compactManyLines(result: LedgerCompactResult): string[] {
  return [
    `session_id=${result.sessionId}`,
    `n_ranges_compacted=${result.ranges.length}`,
    `n_messages_replaced=${result.nMessagesReplaced}`,
    ...result.ranges.map((r) => `compaction=${r.id} ${r.from}..${r.to}`),
    ...result.ranges.flatMap((r) => (r.warning ? [`warning[${r.id}]=${r.warning}`] : [])),
    visibleIdsLine(result.visibleIds),
    ...(result.stored ? [] : ['stored=false']),
  ];
}

/** The lines of `uncompact`. */
export function uncompactLines(result: LedgerUncompactResult): string[] {
  return [
    `session_id=${result.sessionId}`,
    `uncompacted=${result.compactionId}`,
    `n_messages_restored=${result.nMessagesRestored}`,
    `reinstated=${result.reinstated.join(',')}`,
    visibleIdsLine(result.visibleIds),
  ];
}
