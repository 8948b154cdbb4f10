import { join } from 'node:path';
import { cutText, type MarkerCallFields } from '@cordon/plugin-api';
import { sessionDir } from './session-dir.js';
import { appendLine } from '../io/append.js';
import { readJsonLines } from '../io/read-lines.js';
import { isMissingFile, UnsafeReadError } from '../io/safe-read.js';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { ensurePrivateDir } from '../io/private-dir.js';
import { sha256Hex } from '../util/hash.js';

/** Version of the marker line format; bumped on any incompatible change (MARKERS.md). */
export const MARKER_SCHEMA_VERSION = 1;

/** File name of a session's marker log inside its session directory. */
export const MARKERS_FILE = 'markers.jsonl';

/** Longest `command` summary kept, in characters (uncoalesced/cordon); `control run`'s records cut theirs the same. */
export { MAX_COMMAND_CHARS } from '../output/recorded-command.js';

/** Longest `error` text kept, in characters. */
export const MAX_ERROR_CHARS = 2000;

/** What a marker records. `turn_*` are per-turn ticks (`Stop` is a turn end, never a session end). */
export type MarkerEvent = 'session_start' | 'session_end' | 'turn_start' | 'turn_end' | 'tool_start' | 'tool_end' | 'tool_denied';

/** How a tool call ended: `unknown` when the agent does not say (e.g. a Codex shell call without a readable exit code). */
export type ExitStatus = 'ok' | 'failed' | 'unknown' | 'denied';

/**
 * One line of `<data>/runs/<session>/markers.jsonl` (schema: MARKERS.md beside this file).
 * Optional fields are omitted, never `null`.
 */
export interface Marker extends MarkerCallFields {
  /** {@link MARKER_SCHEMA_VERSION}. */
  readonly v: number;
  readonly event: MarkerEvent;
  /** Wall clock when the hook wrote the line, epoch milliseconds (fractional, µs resolution). */
  readonly ts: number;
  /** `tool_end` and `tool_denied`: how the call ended. */
  readonly exit_status?: ExitStatus;
  /** `tool_end` (failed) and `tool_denied`: error text or deny reason, at most {@link MAX_ERROR_CHARS}. */
  readonly error?: string;
  /** `tool_start` of a rewritten call: the command summary of the input that actually runs (`command` keeps the agent's own). */
  readonly rewritten_command?: string;
  /** `tool_start` when a tap rewrote the input; `tool_denied` always: the decision kind. */
  readonly decision?: 'deny' | 'rewrite';
  /** Plugin whose tap decided, when it said so. */
  readonly decided_by?: string;
  /**
   * `tool_start`, `tool_end`: the plugin whose `beforeToolCall` / `afterToolCall` tap failed (threw,
   * or ran past the hook's time bound and was stopped); the call went on undecided.
   */
  readonly plugin_failure?: string;
  /**
   * `tool_end` of a failed shell call on which the loop breaker answered the agent: how many times
   * in a row the call's normalised command has failed in the session, this call included
   * (docs/hooks.md "The loop breaker").
   */
  readonly loop_failures?: number;
  /** With `loop_failures`: the breaker had already answered an earlier failure of the same run (not a new loop). */
  readonly loop_repeat?: boolean;
  /** `tool_end`: who added after-call feedback the agent was given (plugin names, `cordon` for the loop breaker). */
  readonly feedback_by?: readonly string[];
  /**
   * Any event of a call whose hook payload was over the hook's size limit
   * (`CORDON_HOOK_MAX_STDIN_BYTES`): the payload's size, bytes. Its other fields come from the
   * payload's reduced form (long strings kept as their skeletons; docs/hooks.md).
   */
  readonly payload_bytes?: number;
  /** Wall time from the hook process's start (`process.uptime()`) to just before this write, ms. */
  readonly hook_overhead_ms: number;
  /** The hook process's own pid. */
  readonly hook_pid: number;
}

/**
 * Longest `cwd`, `tool_name` or `call_key` a marker keeps, in characters: Linux's `PATH_MAX`,
 * so every working directory a process can have fits whole (MARKERS.md).
 */
export const MAX_MARKER_FIELD_CHARS = 4096;

/**
 * A payload's working directory, tool name or call id as a marker keeps it ({@link Marker},
 * MARKERS.md): whole up to {@link MAX_MARKER_FIELD_CHARS}, else its start and `…sha256:` with
 * 16 hex characters of the SHA-256 of the whole (its JSON form, so lone surrogates count), within
 * the same bound. Equal values stay equal and different ones stay apart, so pairing start and
 * end and the loop breaker's comparison of working directories work on the kept form, while a
 * payload's megabyte field cannot make every marker line of the session a megabyte.
 */
export function markerField(value: string): string {
  if (value.length <= MAX_MARKER_FIELD_CHARS) return value;
  const digest = `…sha256:${sha256Hex(JSON.stringify(value)).slice(0, 16)}`;
  return cutText(value, MAX_MARKER_FIELD_CHARS - digest.length) + digest;
}

/** `<dataDir>/runs/<sanitised session>/markers.jsonl`. */
export function markersPath(dataDir: string, sessionId: unknown): string {
  return join(sessionDir(dataDir, sessionId), MARKERS_FILE);
}

/**
 * Appends one marker as one JSON line through {@link appendLine}: one `write(2)` on an
 * `O_APPEND` descriptor (concurrent hooks of one session neither interleave nor lose lines), whole
 * or not at all (a torn tail left by a full disk is ended with a newline first).
 * Creates the session directory, named from `session_id` as sent; the line keeps `session_id`
 * as {@link markerField} bounds it. Throws on I/O errors (the hot path logs them).
 * @returns the path written.
 */
export function appendMarker(dataDir: string, marker: Marker): string {
  const dir = sessionDir(dataDir, marker.session_id);
  ensurePrivateDir(dir); // 0700 with its data/runs parents: markers hold commands and errors
  const path = join(dir, MARKERS_FILE);
  // The directory is named from the id as sent; the line keeps it bounded (a megabyte id would
  // make every line of the session a megabyte, past what the loop breaker reads).
  appendLine(path, JSON.stringify({ ...marker, session_id: markerField(marker.session_id) }) + '\n');
  return path;
}

/** What {@link readMarkers} found. */
export interface MarkerLog {
  /** Parsed markers of a supported schema version, in file order. */
  readonly markers: Marker[];
  /** 1-based numbers of lines that were not JSON objects or of another schema version. */
  readonly badLines: number[];
}

/**
 * Reads a marker file tolerantly, line by line (never whole in memory): unparseable lines and lines of another schema version are
 * reported in `badLines` and skipped, never fatal (uncoalesced/cordon). A missing
 * file reads as empty.
 * @throws CordonError `CORDON_BAD_STATE` (exit 2) naming the file when it cannot be read: a
 *   directory, FIFO, socket or device in its place ({@link unreadableSessionFile}), or an I/O error.
 */
export function readMarkers(path: string): MarkerLog {
  try {
    const { values, badLines } = readJsonLines(path, isMarker);
    return { markers: values, badLines };
  } catch (error) {
    if (isMissingFile(error)) return { markers: [], badLines: [] };
    throw unreadableSessionFile(path, error);
  }
}

/**
 * A session file (`markers.jsonl`, `samples.jsonl`) that exists but cannot be read, as the error
 * `reduce`, `analyze` and `export` report: `CORDON_BAD_STATE` (exit 2), `cannot read the
 * session file PATH: what is wrong`, `details` `{path}`. A FIFO in its place is refused, not
 * waited on. Errors that are already cordon's pass through.
 */
export function unreadableSessionFile(path: string, error: unknown): CordonError {
  if (error instanceof CordonError) return error;
  const why = error instanceof UnsafeReadError ? error.detail : (error as Error).message;
  return new CordonError(ERROR_CODES.BAD_STATE, `cannot read the session file ${path}: ${why}; move it away to read the rest`, { cause: error, details: { path } });
}

/**
 * The latest time a marker or sample may carry, epoch ms: the end of the ECMAScript time range
 * (±8.64e15 ms, ECMA-262 "Time Values and Time Range"), past which no clock cordon reads goes.
 * A time outside 0 to this is damage: ±1.7e308 made spans and durations Infinity ("over Infinity s",
 * "NaN %") in every report.
 */
export const MAX_EPOCH_MS = 8.64e15;

/** Whether `t` is a time a marker or sample can carry: a number from 0 to {@link MAX_EPOCH_MS}. */
export function isEpochMs(t: unknown): t is number {
  return typeof t === 'number' && t >= 0 && t <= MAX_EPOCH_MS;
}

/** Marker fields that hold text when present (MARKERS.md, "Fields"). */
const TEXT_FIELDS = ['session_id', 'agent', 'native_event', 'call_key', 'call_key_source', 'tool_name', 'tool', 'command', 'cwd', 'exit_status', 'error', 'decision', 'decided_by', 'rewritten_command', 'plugin_failure'] as const;
/** Marker fields that hold a finite number when present. */
const NUMBER_FIELDS = ['exit_code', 'duration_ms', 'loop_failures', 'payload_bytes', 'hook_overhead_ms', 'agent_pid', 'hook_pid'] as const;

/**
 * A marker line cordon can use: schema version 1, an `event`, a `ts` that is a time
 * ({@link isEpochMs}), and every field MARKERS.md lists of its type when present (text as strings,
 * numbers finite, `loop_repeat` a boolean, `feedback_by` strings). A line without a usable `ts`
 * cannot be placed in time, so pairing it would make an unpaired start or an orphan end out of a
 * damaged line: it counts as a bad line instead; so does a line with a field of another type
 * (not cordon's writing), which readers would otherwise store, print and compare as text
 * (`"command": 42` stopped `cordon reduce` with an SQLite bind error).
 */
export function isMarker(value: unknown): value is Marker {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const m = value as Marker & Record<string, unknown>;
  if (m.v !== MARKER_SCHEMA_VERSION || typeof m.event !== 'string' || !isEpochMs(m.ts)) return false;
  for (const key of TEXT_FIELDS) if (m[key] !== undefined && typeof m[key] !== 'string') return false;
  for (const key of NUMBER_FIELDS) if (m[key] !== undefined && !(typeof m[key] === 'number' && Number.isFinite(m[key]))) return false;
  if (m.loop_repeat !== undefined && typeof m.loop_repeat !== 'boolean') return false;
  return m.feedback_by === undefined || (Array.isArray(m.feedback_by) && m.feedback_by.every((name) => typeof name === 'string'));
}
