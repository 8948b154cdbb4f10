import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UNGUARDED_WARNING } from '../control/unguarded.js';
import { readRegularFileTail } from '../io/safe-read.js';
import { listSessions } from '../telemetry/reduce/sessions.js';
import { RUNS_DIR } from '../telemetry/session-dir.js';
import { SAMPLER_FILES } from '../telemetry/sampler/files.js';
import { readSamplerStatus } from '../telemetry/sampler/state.js';
import type { Finding } from './report.js';

/** How much of the end of a file is read: the newest lines, never the whole file. */
const TAIL_BYTES = 64 * 1024;
/** Session directories looked at, newest first (by the markers file's modification time). */
const RECENT_SESSIONS = 200;

/** The complete lines at the end of `path` (at most {@link TAIL_BYTES}); `undefined` when unreadable. */
export function tailLines(path: string, maxBytes = TAIL_BYTES): string[] | undefined {
  let bytes: Buffer;
  try {
    bytes = readRegularFileTail(path, { maxBytes });
  } catch {
    return undefined;
  }
  const lines = bytes.toString('utf8').split('\n');
  // The first line may be cut by the tail window, the last is empty or torn.
  if (bytes.length >= maxBytes) lines.shift();
  lines.pop();
  return lines;
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `ms` as "42 s ago", "5 min ago", "3 h ago", "2 days ago". */
export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 120) return `${s} s ago`;
  if (s < 7200) return `${Math.round(s / 60)} min ago`;
  if (s < 172_800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} days ago`;
}

/** Session directories, most recently active first (at most {@link RECENT_SESSIONS}). */
function recentSessions(dataDir: string): Array<{ dir: string }> {
  return listSessions(dataDir).slice(0, RECENT_SESSIONS);
}

/**
 * The last hook event seen from each agent (from the ends of the newest sessions' markers),
 * and each agent in `expected` (hooks installed) that never reported one.
 */
export function activityFindings(dataDir: string, expected: readonly string[], now = Date.now()): Finding[] {
  const last = new Map<string, { event: string; ts: number; session: string; tool?: string }>();
  for (const { dir } of recentSessions(dataDir)) {
    for (const line of (tailLines(join(dir, SAMPLER_FILES.markers)) ?? []).reverse()) {
      const m = parse(line);
      if (!m || typeof m.agent !== 'string' || typeof m.ts !== 'number' || typeof m.event !== 'string') continue;
      const seen = last.get(m.agent);
      if (!seen || m.ts > seen.ts) last.set(m.agent, { event: m.event, ts: m.ts, session: String(m.session_id ?? ''), ...(typeof m.tool_name === 'string' ? { tool: m.tool_name } : {}) });
      break;
    }
  }
  const findings: Finding[] = [];
  for (const [agent, seen] of [...last].sort()) {
    findings.push({
      check: `activity:${agent}`,
      status: 'info',
      message: `last hook event: ${seen.event}${seen.tool ? ` (${seen.tool})` : ''} ${ago(seen.ts, now)}, session ${seen.session}`,
      details: { ...seen },
    });
  }
  for (const agent of expected.filter((a) => !last.has(a))) {
    findings.push({ check: `activity:${agent}`, status: 'info', message: `no hook event from ${agent} recorded yet in ${join(dataDir, RUNS_DIR)} (start a session to check the hooks fire)` });
  }
  return findings;
}

/** How long a logged error counts as a current problem; older ones are information. */
export const LOG_ERROR_CURRENT_MS = 24 * 3600 * 1000;

/**
 * The plugin a logged plugin failure is about (`plugin "<name>" failed in hook …`,
 * CordonPluginError's words, which bus/host.ts logs with a `plugin` field), else `undefined`.
 */
function failedPlugin(entry: Record<string, unknown>): string | undefined {
  const named = /^plugin "([^"]+)" failed in hook /.exec(String(entry.message))?.[1];
  if (named === undefined) return undefined;
  return typeof entry.plugin === 'string' && entry.plugin ? entry.plugin : named;
}

/**
 * The log's path and its newest error (or warning), from its end. An error less than
 * {@link LOG_ERROR_CURRENT_MS} old is a problem, its fix saying how it stops counting. With
 * `plugins` (the names of the plugins installed or linked now), an entry about a plugin not among
 * them is passed over and noted (`last error 3 min ago from a plugin no longer installed: …`):
 * uninstalling the plugin was the fix.
 */
export function logFindings(dataDir: string, now = Date.now(), plugins?: ReadonlySet<string>): Finding[] {
  const path = join(dataDir, 'logs', 'cordon.log');
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [{ check: 'log', status: 'ok', message: `no log yet (${path})` }];
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a file where the logs directory belongs, which no change of permissions mends.
    if (code === 'ENOTDIR') {
      const logs = dirname(path);
      return [{ check: 'log', status: 'problem', message: `cannot read the log ${path}: ${logs} is not a directory`, fix: `move ${logs} away; cordon makes the directory and a new log` }];
    }
    return [{ check: 'log', status: 'problem', message: `cannot read the log ${path}: ${code}`, fix: code === 'EACCES' || code === 'EPERM' ? `check the permissions of ${path}` : `move ${path} away; cordon starts a new one` }];
  }
  const lines = tailLines(path);
  if (!lines) return [{ check: 'log', status: 'problem', message: `cannot read the log ${path} (not a regular file, or unreadable)`, fix: `move ${path} away; cordon starts a new one` }];
  let bad = 0;
  let routine = 0;
  // Entries about plugins no longer installed or linked: the newest, and how many.
  let gone: { entry: Record<string, unknown>; plugin: string; n: number } | undefined;
  const goneNote = () => {
    if (!gone) return undefined;
    const t = Date.parse(String(gone.entry.t));
    return `last ${String(gone.entry.level)} ${Number.isFinite(t) ? ago(t, now) : '(no time)'} from a plugin no longer installed (${gone.plugin})${gone.n > 1 ? `, ${gone.n} such entries` : ''}: ${String(gone.entry.message)}`;
  };
  for (const line of [...lines].reverse()) {
    const entry = parse(line);
    if (!entry) {
      bad++;
      continue;
    }
    if (entry.level !== 'error' && entry.level !== 'warn') continue;
    // Routine, once per unguarded command: the control row says why.
    if (entry.message === UNGUARDED_WARNING) {
      routine++;
      continue;
    }
    const plugin = plugins ? failedPlugin(entry) : undefined;
    if (plugin !== undefined && !plugins!.has(plugin)) {
      if (gone) gone.n++;
      else gone = { entry, plugin, n: 1 };
      continue;
    }
    const t = Date.parse(String(entry.t));
    const recent = Number.isFinite(t) && now - t < LOG_ERROR_CURRENT_MS;
    const note = goneNote();
    return [
      {
        check: 'log',
        status: recent && entry.level === 'error' ? 'problem' : 'info',
        message: `last ${entry.level} ${Number.isFinite(t) ? ago(t, now) : '(no time)'}: ${String(entry.message)}${entry.scope ? ` [${String(entry.scope)}]` : ''} (log: ${path})${note ? `; ${note}` : ''}`,
        ...(recent && entry.level === 'error' ? { fix: `read ${path}; \`CORDON_LOG_LEVEL=debug\` logs more. Once the cause is fixed, the error stops counting a day after it was logged, or at once when you move ${path} away (cordon starts a new one)` } : {}),
        details: { path, size, entry, ...(gone ? { from_removed_plugin: gone.entry } : {}) },
      },
    ];
  }
  const note = goneNote();
  const notes = [...(note ? [note] : []), ...(routine ? [`${routine} routine "${UNGUARDED_WARNING}" warnings, which the control row explains`] : []), ...(bad ? [`${bad} unreadable lines`] : [])];
  // Routine warnings are warnings all the same: the row says there is nothing to look into, not that there are none.
  const verdict = routine ? 'nothing to look into' : `no ${gone ? 'current ' : ''}warning or error`;
  return [{ check: 'log', status: bad ? 'info' : 'ok', message: `${verdict} in the last ${lines.length} lines of ${path}${notes.length ? ` (${notes.join('; ')})` : ''}`, details: { path, size, routine, ...(gone ? { from_removed_plugin: gone.entry } : {}) } }];
}

/** Samplers running now: each session whose newest sampler lock is held by a live sampler that has not written its `stop` (state.ts `readSamplerStatus`). */
export function samplerFindings(dataDir: string): Finding[] {
  const running: Array<{ session: string; pid: number }> = [];
  for (const { dir } of recentSessions(dataDir)) {
    const { owner, alive, stopped } = readSamplerStatus(dir);
    if (owner?.role === 'sampler' && alive && !stopped) running.push({ session: dir.slice(dir.lastIndexOf('/') + 1), pid: owner.pid });
  }
  return [
    {
      check: 'samplers',
      status: 'info',
      message: running.length ? `${running.length} running: ${running.map((r) => `${r.session} (pid ${r.pid})`).join(', ')}` : 'none running',
      details: { running },
    },
  ];
}
