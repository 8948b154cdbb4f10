import { splitJsonLines } from '../io/append.js';
import { readRegularFileTail } from '../io/safe-read.js';
import type { ToolCallRecord } from '../telemetry/reduce/reduce-session.js';
import { runsFile, type RunRecord } from './store.js';
import { redactText } from '../output/redact.js';
import { guardRewriteCommand } from './guard-shape.js';

/**
 * What `cordon reduce` shows of the `control run` that ran a guarded tool call (tier,
 * limit, peak, stall, events). Bytes and ms; `null` where nothing was measured (an unguarded run
 * on a machine without cgroup v2 records only what it would have applied).
 */
export interface GuardSummary {
  readonly backend: string | null;
  readonly enforced: boolean;
  readonly tier: string;
  readonly final_tier: string;
  readonly limit_bytes: number | null;
  readonly peak_bytes: number | null;
  readonly stall_full_ms: number | null;
  readonly events: Readonly<Record<string, number>>;
  readonly exit_code: number;
  readonly warned: boolean;
}

/** A {@link ToolCallRecord} with the guard result of the run that executed it, when there was one. */
export type GuardedCallRecord = ToolCallRecord & { readonly guard?: GuardSummary };

/** The most of each records file read, bytes: four times the size it rotates at (control/store.ts). */
const RUNS_READ_BYTES = 64 * 1024 * 1024;

/** Clock slack allowed between the hook's marker times and the run's own, ms (both are this machine's wall clock). */
const SLACK_MS = 50;

/**
 * Reads every run recorded in `<dataDir>/control/runs.jsonl` and in the file it was rotated to
 * (`runs.jsonl.1`, control/store.ts) that names a session, older first; torn or foreign lines are
 * skipped. A missing file reads as none.
 */
export function readGuardRuns(dataDir: string): RunRecord[] {
  const file = runsFile(dataDir);
  return [`${file}.1`, file].flatMap((path) => {
    let text: string;
    try {
      // Non-blocking, regular files only, and at most the last RUNS_READ_BYTES: a FIFO here held
      // `cordon reduce`. A first line cut in two is a torn line, skipped.
      text = readRegularFileTail(path, { maxBytes: RUNS_READ_BYTES, links: 'always' }).toString('utf8');
    } catch {
      return [];
    }
    return splitJsonLines(text, isSessionRun).values;
  });
}

/**
 * Joins each call of one session with the `control run` that ran it: a run of the same session
 * whose command (the one `cordon control guard`'s rewrite passes to `bash -c`) is the call's own
 * command and whose start and end lie inside the call's window (the hook's start marker is written
 * before the agent runs the command, the end marker after). Each run joins at most one call, the
 * earliest that fits. Calls without a run are returned unchanged. Commands are compared as
 * `redactText` shows them, so a command with a secret joins whether either side kept it redacted.
 */
export function joinGuardRuns(sessionId: string, calls: readonly ToolCallRecord[], runs: readonly RunRecord[]): GuardedCallRecord[] {
  // Both sides compared with their secrets as `***` (output/redact.ts, idempotent): runs record
  // the command redacted, and markers too, except those of an older cordon, which kept it as sent.
  const mine = runs
    .filter((r) => r.session_id === sessionId)
    .sort((a, b) => a.start_t - b.start_t)
    .flatMap((r) => {
      const command = guardedCommand(r);
      return command === undefined ? [] : [{ r, command: redactText(command) }];
    });
  const used = new Set<RunRecord>();
  return calls.map((call) => {
    const shown = redactText(call.command);
    const run = mine.find(({ r, command }) => !used.has(r) && r.start_t >= call.start_ts - SLACK_MS && r.t <= call.end_ts + SLACK_MS && shown === command.slice(0, shown.length))?.r;
    if (!run) return call;
    used.add(run);
    return { ...call, guard: summary(run) };
  });
}

/**
 * The tool call's command inside a guarded run's argv: `bash -c <script> cordon-guard <state>
 * <command>` (the guard's current rewrite, which keeps the agent shell's functions and
 * working directory), or `bash -c <command>` (before it); else undefined.
 */
function guardedCommand(run: RunRecord): string | undefined {
  const argv = run.argv;
  return guardRewriteCommand(argv) ?? (argv.length === 3 && argv[0] === 'bash' && argv[1] === '-c' ? argv[2] : undefined);
}

function summary(r: RunRecord): GuardSummary {
  return {
    backend: r.backend,
    enforced: r.enforced,
    tier: r.tier,
    final_tier: r.final_tier,
    limit_bytes: r.limit_bytes,
    peak_bytes: r.peak_bytes,
    stall_full_ms: r.stall_full_ms,
    events: r.events,
    exit_code: r.exit_code,
    warned: r.warned,
  };
}

/**
 * Whether a line of `runs.jsonl` is a run of a session with every field the join reads of its
 * type (the line is data: another cordon's, or damaged). A field of another type (`"argv": ["bash",
 * "-c", 42]`, `"limit_bytes": "lots"`) stopped `cordon reduce` with a TypeError or put NaN in
 * its text; such a line now joins no call.
 */
function isSessionRun(value: unknown): value is RunRecord {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const r = value as Record<string, unknown>;
  const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
  const orNull = (x: unknown, is: (y: unknown) => boolean) => x === null || is(x);
  const text = (x: unknown): x is string => typeof x === 'string';
  return (
    text(r.session_id) &&
    finite(r.start_t) &&
    finite(r.t) &&
    Array.isArray(r.argv) &&
    r.argv.every(text) &&
    orNull(r.backend, text) &&
    typeof r.enforced === 'boolean' &&
    text(r.tier) &&
    text(r.final_tier) &&
    orNull(r.limit_bytes, finite) &&
    orNull(r.peak_bytes, finite) &&
    orNull(r.stall_full_ms, finite) &&
    !!r.events &&
    typeof r.events === 'object' &&
    !Array.isArray(r.events) &&
    Object.values(r.events).every(finite) &&
    Number.isInteger(r.exit_code) &&
    typeof r.warned === 'boolean'
  );
}
