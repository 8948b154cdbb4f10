import { homedir } from 'node:os';
import { join } from 'node:path';
import { terminalText } from '../output/terminal.js';
import { RUNS_DIR } from '../telemetry/session-dir.js';
import { columns, cutColumns, padColumns, padColumnsStart } from './columns.js';
import { clock, mebibytes, percent, timeOfDay } from './format.js';
import type { TopEndedCall, TopSession, TopSnapshot } from './snapshot.js';
import { SORT_LABELS, sortKeysHelp } from './sort.js';

/** Options of {@link renderTop}. */
export interface RenderOptions {
  /** Columns each line may take (lines are cut to it, never wrapped). */
  readonly width: number;
  /** Ended calls shown under each session (default: all the snapshot holds). */
  readonly lastCalls?: number;
  /** True for the live view: the header names the keys. */
  readonly live?: boolean;
  /** The home directory shown as `~` in working directories (default `os.homedir()`). */
  readonly home?: string;
}

/** One column of the session row: its heading, its width, and whether it is right-aligned. */
interface Column {
  readonly id: 'agent' | 'session' | 'up' | 'mem' | 'cpu' | 'peak';
  readonly heading: string;
  readonly width: number;
  readonly right?: boolean;
  /** Columns dropped first on a narrow terminal have the lowest priority. */
  readonly priority: number;
}

const FIXED: readonly Column[] = [
  { id: 'agent', heading: 'AGENT', width: 11, priority: 5 },
  { id: 'session', heading: 'SESSION', width: 12, priority: 1 },
  { id: 'up', heading: 'UP', width: 9, right: true, priority: 2 },
  { id: 'mem', heading: 'MEM', width: 7, right: true, priority: 4 },
  { id: 'cpu', heading: 'CPU%', width: 6, right: true, priority: 4 },
  { id: 'peak', heading: 'PEAK', width: 8, right: true, priority: 3 },
];

/** Columns left at least for the current call and the directory before fixed columns are dropped. */
const MIN_FLEX = 24;

/**
 * Code units of an agent's text kept for display: more than any line shows (`--width` is at most
 * 1000 columns), so a cwd or session id of megabytes is cut before it is escaped and measured.
 */
const SHOWN_TEXT_MAX = 4096;

/** Untrusted text (an agent's command, path, id) cut to {@link SHOWN_TEXT_MAX}, escaped for the terminal and on one line. */
function safe(text: string | null | undefined): string {
  if (!text) return '';
  return terminalText(text.length > SHOWN_TEXT_MAX ? `${text.slice(0, SHOWN_TEXT_MAX)}…` : text);
}

/** `path` with the home directory shown as `~`. */
function shortPath(path: string | null, home: string): string {
  if (!path) return '';
  if (home && home !== '/' && (path === home || path.startsWith(`${home}/`))) return `~${path.slice(home.length)}`;
  return path;
}

/** A sampler's stop reason (`sampler.jsonl`) in at most six columns, to fit beside "sampler stopped: ". */
const STOP_REASONS: Readonly<Record<string, string>> = Object.freeze({ idle: 'idle', 'stop-file': 'STOP', signal: 'signal', superseded: 'new', 'agent-exit': 'exit', unsupported: 'n/a', 'lock-lost': 'lock' });

/** What the sampler columns show when there is no fresh sample. */
function samplerNote(s: TopSession): string | undefined {
  switch (s.sampler.state) {
    case 'running':
      return s.now ? undefined : 'sampler: no sample yet';
    case 'starting':
      return 'sampler starting';
    case 'stopped':
      return `sampler stopped${s.sampler.reason ? `: ${STOP_REASONS[s.sampler.reason] ?? s.sampler.reason}` : ''}`;
    case 'died':
      return 'sampler died';
    case 'none':
      return 'no sampler';
  }
}

/** How an ended call ended, in a few characters. */
function outcome(call: TopEndedCall): string {
  if (call.exit_status === 'ok') return 'ok';
  if (call.exit_status === 'denied') return 'denied';
  if (call.exit_status === 'failed') return call.exit_code !== null ? `exit ${call.exit_code}` : 'failed';
  return '?';
}

/**
 * The lines of one snapshot as `cordon top` shows them, each at most `width` columns: a header,
 * the column headings, then per session one row (agent, session id, running time, the tree's
 * memory and CPU now, the current call's peak, the current call with how long it has run, the
 * working directory) followed by its last calls, indented. Every text an agent wrote goes through
 * `terminalText`, so no control character reaches the terminal.
 */
export function renderTop(snapshot: TopSnapshot, options: RenderOptions): string[] {
  const width = Math.max(20, Math.floor(options.width));
  const home = options.home ?? homedir();
  const n = snapshot.sessions.length;
  const keys = options.live ? ` · ${sortKeysHelp()}` : '';
  const lines = [cutColumns(`cordon top · ${n} session${n === 1 ? '' : 's'} · sorted by ${SORT_LABELS[snapshot.sort]} · ${timeOfDay(snapshot.at)}${keys}`, width)];
  if (n === 0) {
    lines.push(cutColumns(`no agent session running (sessions are read from ${safe(join(snapshot.data_dir, RUNS_DIR))})`, width));
    return lines;
  }

  // Drop the least needed fixed columns until the call and directory keep MIN_FLEX columns.
  let fixed = [...FIXED];
  const used = (cols: readonly Column[]): number => cols.reduce((sum, c) => sum + c.width + 1, 0);
  for (let priority = 1; priority < 5 && width - used(fixed) < MIN_FLEX; priority++) fixed = fixed.filter((c) => c.priority > priority);
  const flex = Math.max(0, width - used(fixed));
  // The directory gets what its longest value needs, up to a third of what is left; the call the rest.
  const longestCwd = Math.max(3, ...snapshot.sessions.map((s) => columns(safe(shortPath(s.cwd, home)))));
  const cwdWidth = flex >= MIN_FLEX ? Math.min(longestCwd, Math.floor(flex / 3)) : 0;
  const callWidth = Math.max(0, flex - (cwdWidth > 0 ? cwdWidth + 1 : 0));
  const before = fixed.filter((c) => c.id === 'agent' || c.id === 'session');
  const after = fixed.filter((c) => !before.includes(c));

  const cell = (c: Column, text: string): string => (c.right ? padColumnsStart(text, c.width) : padColumns(text, c.width));
  const row = (left: readonly string[], cwd: string, right: readonly string[], call: string): string =>
    cutColumns([...left, ...(cwdWidth > 0 ? [padColumns(cwd, cwdWidth)] : []), ...right, cutColumns(call, callWidth)].join(' ').trimEnd(), width);
  lines.push(row(before.map((c) => cell(c, c.heading)), 'CWD', after.map((c) => cell(c, c.heading)), 'CALL'));

  const lastCalls = options.lastCalls;
  for (const s of snapshot.sessions) {
    const note = samplerNote(s);
    const values: Record<Column['id'], string> = {
      agent: safe(s.agent) || '?',
      session: safe(s.session_id),
      up: s.running_ms === null ? '' : clock(s.running_ms),
      mem: s.now ? mebibytes(s.now.mem_mb) : '',
      cpu: s.now ? percent(s.now.cpu_pct) : '',
      peak: s.current_call?.peak_mem_mb != null ? `${s.current_call.peak_from !== null ? '≥' : ''}${mebibytes(s.current_call.peak_mem_mb)}` : '',
    };
    // Without a fresh sample the memory, CPU and peak columns say why, across the three.
    const right: string[] = [];
    let span: Column[] = [];
    const flush = (): void => {
      if (span.length) right.push(padColumns(note!, used(span) - 1));
      span = [];
    };
    for (const c of after) {
      if (note && (c.id === 'mem' || c.id === 'cpu' || c.id === 'peak')) {
        span.push(c);
        continue;
      }
      flush();
      right.push(cell(c, values[c.id]));
    }
    flush();
    const call = s.current_call;
    const callText = call ? `${safe(call.tool_name) || '?'} ${clock(call.running_ms)}${s.open_calls > 1 ? ` (+${s.open_calls - 1})` : ''} ${safe(call.command)}` : '-';
    lines.push(row(before.map((c) => cell(c, values[c.id])), safe(shortPath(s.cwd, home)), right, callText));
    for (const ended of s.last_calls.slice(0, lastCalls ?? s.last_calls.length)) {
      const duration = ended.duration_ms === null ? '' : clock(ended.duration_ms);
      lines.push(cutColumns(`   ${padColumns(outcome(ended), 7)} ${padColumnsStart(duration, 7)}  ${safe(ended.tool_name) || '?'}  ${safe(ended.command)}`.trimEnd(), width));
    }
  }
  return lines;
}

/**
 * `lines` fitted to a screen of `rows` rows and `width` columns (the live view): when they do not
 * all fit, the last row says how many more there are, in the longest form that fits the width
 * (`… 17 more lines: a taller terminal shows them`, `… 17 more lines`, `+17 more`), cut with
 * {@link cutColumns} as every other line, so no line wraps and the header stays on screen.
 */
export function fitRows(lines: readonly string[], rows: number, width: number): string[] {
  const height = Math.max(1, Math.floor(rows));
  const cut = Math.max(1, Math.floor(width));
  if (lines.length <= height) return lines.map((line) => cutColumns(line, cut));
  const more = lines.length - height + 1;
  const forms = [`… ${more} more lines: a taller terminal shows them`, `… ${more} more lines`, `+${more} more`];
  const footer = cutColumns(forms.find((form) => columns(form) <= cut) ?? forms.at(-1)!, cut);
  return [...lines.slice(0, height - 1).map((line) => cutColumns(line, cut)), footer];
}
