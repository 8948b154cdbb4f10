import { isMarker, type ExitStatus, type Marker } from '../telemetry/markers.js';
import { pairCalls } from '../telemetry/reduce/pair.js';
import { readRegularFileHead, readRegularFileWindow, UnsafeReadError } from '../io/safe-read.js';
import { windowLines } from '../io/window-lines.js';
import { numberField, parseObject, stringField } from './lines.js';

/**
 * How much of the end of `markers.jsonl` is read, bytes. A marker line is at most about 4.5 KiB
 * (a 2,000-character command and a 2,000-character error, MARKERS.md), so the window holds the
 * last 28 markers at the very least and some hundreds usually: the current call, the calls
 * before it, the session's agent, cwd and pid.
 */
export const MARKERS_TAIL_BYTES = 128 * 1024;

/**
 * How much of the end of `markers.jsonl` is read when the last {@link MARKERS_TAIL_BYTES} hold no
 * whole marker, bytes: a marker line longer than the window (the agent sent a cwd or a session id
 * of hundreds of KiB; the hook caps only the command and the error) is read whole from this
 * wider window, once per change of the file, so its session is still listed. A line longer still
 * is not read.
 */
export const MARKERS_LONG_TAIL_BYTES = 4 * 1024 * 1024;

/** How much of the start of `markers.jsonl` is read for the session's first marker, bytes. */
export const MARKERS_HEAD_BYTES = 16 * 1024;

/** A tool call that has started and not ended, from its `tool_start` marker. */
export interface OpenCall {
  readonly call_key: string | null;
  /** The native tool name (`Bash`, `run_shell_command`). */
  readonly tool_name: string | null;
  /** The canonical family (`shell`, `read`, …). */
  readonly tool: string | null;
  /** The command or input summary the hook recorded (an agent's text: escape before printing). */
  readonly command: string | null;
  /** When it started, epoch ms. */
  readonly started_at: number;
}

/** A tool call that ended (or was denied), from its `tool_end` or `tool_denied` marker. */
export interface EndedCall {
  readonly tool_name: string | null;
  readonly command: string | null;
  /** `ok`, `failed`, `unknown` or `denied` (MARKERS.md). */
  readonly exit_status: ExitStatus | null;
  /** A shell call's exit code, when the agent reported one. */
  readonly exit_code: number | null;
  /** When it ended, epoch ms. */
  readonly ended_at: number;
  /**
   * How long it ran, ms: end minus start when its start is in the window read, else the duration
   * the agent reported, else `null` (a denied call never ran: 0).
   */
  readonly duration_ms: number | null;
}

/** What the end of one session's `markers.jsonl` says. */
export interface MarkersView {
  /** The raw session id of the newest marker (an agent's text). */
  readonly sessionId: string | undefined;
  readonly agent: string | undefined;
  /** The newest working directory reported (an agent's text). */
  readonly cwd: string | undefined;
  /** The newest `agent_pid`, and the time of the marker that named it (epoch ms). */
  readonly agentPid: { readonly pid: number; readonly at: number } | undefined;
  /** The newest marker's time, epoch ms. */
  readonly lastAt: number | undefined;
  /** The session's first marker's time (from the file's head), epoch ms. */
  readonly firstAt: number | undefined;
  /** True when the newest marker is a `session_end`. */
  readonly ended: boolean;
  /** Calls open now, oldest first (see {@link readMarkersView}). */
  readonly open: OpenCall[];
  /** Calls that ended, newest first, at most `lastCalls`. */
  readonly endedCalls: EndedCall[];
  /** Lines of the window that were not markers (torn, foreign, another schema version). */
  readonly badLines: number;
}

const EMPTY: MarkersView = { sessionId: undefined, agent: undefined, cwd: undefined, agentPid: undefined, lastAt: undefined, firstAt: undefined, ended: false, open: [], endedCalls: [], badLines: 0 };

/**
 * Reads what `cordon top` shows of a session from the last {@link MARKERS_TAIL_BYTES} of its
 * markers and the first line of the file, never the whole file, whatever its size (when that
 * window holds no whole marker, the last {@link MARKERS_LONG_TAIL_BYTES}: one line longer than
 * the window). Opened
 * read-only, non-blocking and without following a link (`src/io`); a missing or unreadable file
 * reads as empty.
 *
 * Open calls are the window's `tool_start` markers that no `tool_end` pairs (the pairing of
 * `cordon reduce`), except those older than the newest turn boundary (`turn_start`, `turn_end`):
 * a turn that ended has no call running, so a start whose end never came (a call the user refused
 * in the agent's own prompt, a hook that timed out) is not shown as running forever. A call that
 * started before the window (more than {@link MARKERS_TAIL_BYTES} of markers ago) is not seen.
 * @param lastCalls how many ended calls to keep.
 * @param firstAt the first marker's time when the caller knows it already (it read this file's
 *   head before: appends never change it); else the head is read.
 */
export function readMarkersView(path: string, lastCalls: number, firstAt?: number): MarkersView {
  let markers: Marker[];
  let badLines = 0;
  try {
    let size: number;
    ({ markers, badLines, size } = readMarkersWindow(path, MARKERS_TAIL_BYTES));
    // No whole marker in a window that did not reach the file's start: the newest line may be longer than the window.
    if (markers.length === 0 && size > MARKERS_TAIL_BYTES) ({ markers, badLines } = readMarkersWindow(path, MARKERS_LONG_TAIL_BYTES));
  } catch (error) {
    if (error instanceof UnsafeReadError || isErrno(error)) return EMPTY;
    throw error;
  }
  const ordered = markers.map((m, i) => ({ m, i })).sort((a, b) => a.m.ts - b.m.ts || a.i - b.i).map(({ m }) => m);
  let sessionId: string | undefined;
  let agent: string | undefined;
  let cwd: string | undefined;
  let agentPid: MarkersView['agentPid'];
  let boundary = -Infinity;
  for (const m of ordered) {
    sessionId = stringField(m.session_id) ?? sessionId;
    agent = stringField(m.agent) ?? agent;
    cwd = stringField(m.cwd) ?? cwd;
    const pid = numberField(m.agent_pid);
    if (pid !== undefined && Number.isInteger(pid) && pid > 0) agentPid = { pid, at: m.ts };
    if (m.event === 'turn_start' || m.event === 'turn_end') boundary = m.ts;
  }
  const newest = ordered.at(-1);
  const { calls, unpairedStarts, orphanEnds } = pairCalls(ordered);
  const open = unpairedStarts.filter((m) => m.ts > boundary).map(toOpenCall);
  const ends: EndedCall[] = [
    ...calls.map(({ start, end }) => toEndedCall(end, end.ts - start.ts)),
    ...orphanEnds.map((end) => toEndedCall(end, numberField(end.duration_ms) ?? null)),
    ...ordered.filter((m) => m.event === 'tool_denied').map((m) => toEndedCall(m, 0)),
  ].sort((a, b) => b.ended_at - a.ended_at);
  return {
    sessionId,
    agent,
    cwd,
    agentPid,
    lastAt: newest?.ts,
    firstAt: firstAt ?? readFirstMarkerTs(path) ?? ordered[0]?.ts,
    ended: newest?.event === 'session_end',
    open,
    endedCalls: ends.slice(0, Math.max(0, lastCalls)),
    badLines,
  };
}

/** The markers among the whole lines of the last `maxBytes` of `path`, how many lines were not markers, and the file's size. */
function readMarkersWindow(path: string, maxBytes: number): { markers: Marker[]; badLines: number; size: number } {
  const window = readRegularFileWindow(path, { maxBytes });
  const markers: Marker[] = [];
  let badLines = 0;
  for (const line of windowLines(window).lines) {
    const value = parseObject(line);
    if (value && isMarker(value)) markers.push(value);
    else if (line.trim() !== '') badLines++;
  }
  return { markers, badLines, size: window.size };
}

/** The `ts` of the file's first line when it is a marker within {@link MARKERS_HEAD_BYTES}; else `undefined`. */
export function readFirstMarkerTs(path: string): number | undefined {
  try {
    const head = readRegularFileHead(path, { maxBytes: MARKERS_HEAD_BYTES });
    const newline = head.indexOf(0x0a);
    if (newline === -1) return undefined;
    const value = parseObject(head.toString('utf8', 0, newline));
    return value && isMarker(value) ? value.ts : undefined;
  } catch {
    return undefined;
  }
}

function toOpenCall(m: Marker): OpenCall {
  return { call_key: stringField(m.call_key) ?? null, tool_name: stringField(m.tool_name) ?? null, tool: stringField(m.tool) ?? null, command: stringField(m.command) ?? null, started_at: m.ts };
}

const EXIT_STATUSES: ReadonlySet<string> = new Set(['ok', 'failed', 'unknown', 'denied']);

function toEndedCall(m: Marker, durationMs: number | null): EndedCall {
  const status = stringField(m.exit_status);
  const code = numberField(m.exit_code);
  return {
    tool_name: stringField(m.tool_name) ?? null,
    command: stringField(m.command) ?? null,
    exit_status: status !== undefined && EXIT_STATUSES.has(status) ? (status as ExitStatus) : null,
    exit_code: code !== undefined && Number.isInteger(code) ? code : null,
    ended_at: m.ts,
    duration_ms: durationMs === null ? null : Math.max(0, durationMs),
  };
}

function isErrno(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}
