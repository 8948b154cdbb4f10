import { isTerminal } from '../util/legacy-binding.js';
import { terminalText } from './terminal.js';
import { terminalColumns } from './terminal-width.js';

/**
 * One status line at the bottom of a terminal while a long step runs (`cordon run` waiting for its
 * agent, `cordon check` running verifiers, `cordon export` sending): what is happening and for how
 * long, redrawn once a second and cleared when the step ends. A command switches it on with
 * {@link enableStatus} only when stderr is a terminal and it does not print `--json`: piped or
 * machine-read output never gets a control character. A command whose step can take minutes
 * (`run`, `resume` waiting for an agent) may ask for plain lines where stderr is not a terminal:
 * the same text as a line of its own every `plainEveryMs`, and nothing before the first interval
 * has passed. Libraries call {@link setStatus} and {@link clearStatus} freely; while the line is
 * off they cost nothing.
 */
interface StatusState {
  stream: NodeJS.WriteStream;
  text: string | undefined;
  /** Asked at each redraw for what follows the elapsed time (an agent's current tool call). */
  detail: (() => string | undefined) | undefined;
  since: number;
  timer: NodeJS.Timeout | undefined;
  drawn: boolean;
  /** Set when stderr is not a terminal: a plain line every this many ms instead of a redrawn one. */
  plainEveryMs: number | undefined;
}

let state: StatusState | undefined;

/** Options of {@link enableStatus}. */
export interface StatusOptions {
  /** The command prints `--json`: no status at all. */
  readonly json?: boolean;
  /** Where the status goes (default stderr). */
  readonly stream?: NodeJS.WriteStream;
  /** Where `stream` is not a terminal, print the status as a plain line this often (ms) instead of none. */
  readonly plainEveryMs?: number;
}

/**
 * Turns the status line on for `stream` (default stderr) when it is a terminal and `json` is
 * false, or, given `plainEveryMs`, plain status lines where it is not one. Returns whether it is on.
 */
export function enableStatus(options: StatusOptions = {}): boolean {
  if (options.json || process.env.CORDON_NO_PROGRESS) return false;
  const plain = options.plainEveryMs !== undefined && options.plainEveryMs > 0 ? options.plainEveryMs : undefined;
  // Asked of descriptor 2 before process.stderr exists: creating that stream for a pipe or file
  // loads Node's stream (and socket) modules, which a fast `cordon check` that prints no status
  // line never needs (`npm run bench:envelope`).
  if (!options.stream && !plain && !isTerminal(2)) return false;
  const stream = options.stream ?? process.stderr;
  if (!stream.isTTY && !plain) return false;
  state = { stream, text: undefined, detail: undefined, since: 0, timer: undefined, drawn: false, plainEveryMs: stream.isTTY ? undefined : plain };
  return true;
}

/** `12 s`, `3 min 04 s`, `1 h 02 min`. */
export function elapsedText(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** The status text: what runs, for how long, and the detail when there is one (all escaped). */
function statusText(current: StatusState): string {
  let detail: string | undefined;
  try {
    detail = current.detail?.();
  } catch {
    detail = undefined;
  }
  return `${current.text} · ${elapsedText(Date.now() - current.since)}${detail ? ` · ${terminalText(detail)}` : ''}`;
}

/** One plain status line (stderr is not a terminal): no carriage return, no escape sequence. */
function drawPlain(): void {
  if (!state || state.text === undefined) return;
  state.stream.write(`${statusText(state)}\n`);
}

function draw(): void {
  if (!state || state.text === undefined) return;
  const line = statusText(state);
  const width = Math.max(20, terminalColumns(state.stream.columns) - 1);
  state.stream.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
  state.drawn = true;
}

/**
 * Shows `text` (escaped for the terminal: it may hold a verifier's command) with the time since
 * this call and, when given, what `detail` answers at each redraw (escaped too; it must be cheap
 * and is never trusted not to throw).
 */
export function setStatus(text: string, detail?: () => string | undefined): void {
  if (!state) return;
  state.text = terminalText(text);
  state.detail = detail;
  state.since = Date.now();
  if (state.plainEveryMs !== undefined) {
    if (state.timer) clearInterval(state.timer);
    state.timer = setInterval(drawPlain, state.plainEveryMs);
    state.timer.unref();
    return;
  }
  draw();
  if (!state.timer) {
    state.timer = setInterval(draw, 1000);
    // The line never keeps the process alive.
    state.timer.unref();
  }
}

/** Clears the line (before the command prints its result). */
export function clearStatus(): void {
  if (!state) return;
  if (state.timer) clearInterval(state.timer);
  state.timer = undefined;
  state.text = undefined;
  state.detail = undefined;
  if (state.drawn) state.stream.write('\r\x1b[2K');
  state.drawn = false;
}
