import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RUNS_DIR } from '../telemetry/session-dir.js';
import { SAMPLER_FILES } from '../telemetry/sampler/files.js';
import { agentAlive } from './agent-alive.js';
import { readMarkersView, type EndedCall, type MarkersView } from './markers-tail.js';
import { PeakTracker, readLatestSample } from './samples-tail.js';
import { readSamplerView, type SamplerState } from './sampler-state.js';
import { sortSessions, type TopSortKey } from './sort.js';

/** Version of {@link TopSnapshot}; bumped when a field is removed or changes meaning. */
export const TOP_SCHEMA_VERSION = 1 as const;

/** Ended calls kept per session by default. */
export const DEFAULT_LAST_CALLS = 3;

/** What `cordon top --json` prints (`schema_version` 1): the agent sessions running on this machine at one moment. */
export interface TopSnapshot {
  readonly schema_version: 1;
  /** When the files were read, epoch ms. */
  readonly at: number;
  /** The data directory whose `runs/` was read. */
  readonly data_dir: string;
  /** The order of `sessions`. */
  readonly sort: TopSortKey;
  /** One entry per running session, in `sort` order. */
  readonly sessions: TopSession[];
}

/**
 * One running agent session. A session runs while its sampler runs (the sampler exits within a
 * tick of its agent), or, when the sampler is gone, while the agent process the markers name
 * runs (`/proc`, its start time checked against pid reuse); a session whose newest marker is a
 * `session_end` has ended either way. Text fields hold what an agent sent: escape them before
 * printing.
 */
export interface TopSession {
  /** The agent's session id as sent (the newest marker's), else the directory name. */
  readonly session_id: string;
  /** The session's directory under `<data>/runs/` (the sanitised id). */
  readonly dir_name: string;
  /** The dialect: `claude-code`, `codex`, `gemini`, `cursor`, `hermes`, `aider`; `null` before its first marker. */
  readonly agent: string | null;
  /** The working directory the agent last reported. */
  readonly cwd: string | null;
  /** The agent's process (the root of the tree the sampler measures). */
  readonly agent_pid: number | null;
  /** The session's first marker, epoch ms (else the sampler's start). */
  readonly started_at: number | null;
  /** `at` minus `started_at`, ms. */
  readonly running_ms: number | null;
  /** The newest marker, epoch ms. */
  readonly last_marker_at: number | null;
  readonly sampler: TopSampler;
  /** The tree's newest sample while the sampler runs; `null` when it does not (or has written none yet). */
  readonly now: TopTreeNow | null;
  /** The newest call that has started and not ended, or `null`. */
  readonly current_call: TopCurrentCall | null;
  /** Calls open now (parallel calls), the current one included. */
  readonly open_calls: number;
  /** The last calls that ended or were denied, newest first. */
  readonly last_calls: TopEndedCall[];
}

/** A session's sampler. */
export interface TopSampler {
  /** `running`, `starting`, `stopped` (wrote its stop event: see `reason`), `died` (ended without one), `none` (never started). */
  readonly state: SamplerState;
  readonly pid: number | null;
  /** `stopped`: why (`idle`, `stop-file`, `signal`, `superseded`, `agent-exit`, `unsupported`, `lock-lost`). */
  readonly reason: string | null;
}

/** The tree's newest sample. */
export interface TopTreeNow {
  /** When the sampler read it, epoch ms. */
  readonly sampled_at: number;
  /** RSS summed over the agent's process tree, MiB; `null` when the sample's value cannot be real (negative, not finite, above 16 EiB). */
  readonly mem_mb: number | null;
  /** CPU of the tree over the last tick, % of one core; `null` when missing or not real (negative, not finite). */
  readonly cpu_pct: number | null;
  /** Processes in the tree; `null` when missing or not a count (negative, fractional). */
  readonly n_procs: number | null;
}

/** The call running now. */
export interface TopCurrentCall {
  readonly call_key: string | null;
  /** The native tool name (`Bash`, `run_shell_command`, `apply_patch`). */
  readonly tool_name: string | null;
  /** The canonical family: `shell`, `read`, `write`, `edit`, `search`, `web`, `subagent`, `mcp`, `other`. */
  readonly tool: string | null;
  /** The command or input summary (at most 2,000 characters). */
  readonly command: string | null;
  /** Epoch ms. */
  readonly started_at: number;
  /** How long it has run, ms. */
  readonly running_ms: number;
  /** The highest memory of the tree since the call started, MiB; `null` before a sample. */
  readonly peak_mem_mb: number | null;
  /** When the peak covers only the call's end (a call longer than the samples read): the oldest sample it covers, epoch ms. */
  readonly peak_from: number | null;
}

/** A call that ended or was denied. */
export interface TopEndedCall {
  readonly tool_name: string | null;
  readonly command: string | null;
  /** `ok`, `failed`, `unknown`, `denied`. */
  readonly exit_status: 'ok' | 'failed' | 'unknown' | 'denied' | null;
  readonly exit_code: number | null;
  /** Epoch ms. */
  readonly ended_at: number;
  /** ms; `null` when unknown. */
  readonly duration_ms: number | null;
}

/** Options of {@link TopReader}. */
export interface TopReaderOptions {
  /** cordon's data directory (sessions under `<dataDir>/runs/`). */
  readonly dataDir: string;
  /** Ended calls kept per session (default {@link DEFAULT_LAST_CALLS}). */
  readonly lastCalls?: number;
}

/** A file's identity and size, to tell whether it changed (`ino:size:mtime`), or `-` when missing. */
function stamp(path: string): string {
  try {
    const s = statSync(path, { throwIfNoEntry: false });
    return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : '-';
  } catch {
    return '?';
  }
}

/**
 * Reads the running sessions from `<dataDir>/runs/`, again and again (`cordon top` makes one and
 * calls {@link read} once a second). Every file is read from its end within a bound
 * (`markers-tail.ts`, `samples-tail.ts`, `sampler-state.ts`), never whole, so a read costs the same
 * for a session of a minute and one of a week. Between reads it remembers:
 * - each session's markers view, read again only when `markers.jsonl` changed (inode, size, mtime);
 * - the sessions found ended, looked at again only when their markers or samples change (a session
 *   comes back only through a hook, which appends a marker first);
 * - each current call's peak, continued from where the samples were last read.
 *
 * It only reads: no lock, no signal, no write anywhere, so the sessions it watches pay nothing.
 */
export class TopReader {
  readonly #dataDir: string;
  readonly #lastCalls: number;
  readonly #markers = new Map<string, { stamp: string; view: MarkersView }>();
  readonly #ended = new Map<string, string>();
  readonly #peaks = new Map<string, PeakTracker>();

  constructor(options: TopReaderOptions) {
    this.#dataDir = options.dataDir;
    this.#lastCalls = options.lastCalls ?? DEFAULT_LAST_CALLS;
  }

  /** One snapshot, sorted by `sort`, taken at `now` (epoch ms). Never throws for a session's files. */
  snapshot(sort: TopSortKey, now = Date.now()): TopSnapshot {
    return { schema_version: TOP_SCHEMA_VERSION, at: now, data_dir: this.#dataDir, sort, sessions: sortSessions(this.read(now), sort) };
  }

  /** The running sessions, unsorted. */
  read(now = Date.now()): TopSession[] {
    const runs = join(this.#dataDir, RUNS_DIR);
    let names: string[];
    try {
      // Directories only: a link in runs/ is not followed (Dirent types come from lstat).
      names = readdirSync(runs, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      names = [];
    }
    const sessions: TopSession[] = [];
    const seen = new Set<string>();
    for (const name of names) {
      const session = this.#session(name, now);
      if (session) {
        sessions.push(session);
        seen.add(name);
      }
    }
    // Forget what belongs to sessions that ended (markers, peaks) or whose directory is gone.
    const listed = new Set(names);
    for (const key of this.#markers.keys()) if (!seen.has(key)) this.#markers.delete(key);
    for (const key of this.#peaks.keys()) if (!seen.has(key)) this.#peaks.delete(key);
    for (const key of this.#ended.keys()) if (!listed.has(key)) this.#ended.delete(key);
    return sessions;
  }

  #session(name: string, now: number): TopSession | undefined {
    const dir = join(this.#dataDir, RUNS_DIR, name);
    const markersPath = join(dir, SAMPLER_FILES.markers);
    const samplesPath = join(dir, SAMPLER_FILES.samples);
    const markersStamp = stamp(markersPath);
    const filesStamp = `${markersStamp}|${stamp(samplesPath)}`;
    if (this.#ended.get(name) === filesStamp) return undefined;
    const sampler = readSamplerView(dir);
    let cached = this.#markers.get(name);
    if (!cached || cached.stamp !== markersStamp) {
      // The same file (inode) grown by appends keeps its first marker: its head is not read again.
      const sameFile = cached !== undefined && cached.stamp.split(':')[0] === markersStamp.split(':')[0];
      cached = { stamp: markersStamp, view: readMarkersView(markersPath, this.#lastCalls, sameFile ? cached!.view.firstAt : undefined) };
      this.#markers.set(name, cached);
    }
    const markers = cached.view;
    const samplerRuns = sampler.state === 'running' || sampler.state === 'starting';
    const agent = markers.agentPid ?? sampler.root ?? undefined;
    const alive = !markers.ended && (samplerRuns || (agent !== undefined && agentAlive(agent.pid, agent.at)));
    if (!alive) {
      this.#ended.set(name, filesStamp);
      return undefined;
    }
    this.#ended.delete(name);
    const startedAt = markers.firstAt ?? sampler.root?.at ?? null;
    const latest = sampler.state === 'running' ? readLatestSample(samplesPath) : undefined;
    const open = markers.open;
    const current = open.length ? open.reduce((a, b) => (b.started_at >= a.started_at ? b : a)) : undefined;
    let currentCall: TopCurrentCall | null = null;
    if (current) {
      let tracker = this.#peaks.get(name);
      if (!tracker || tracker.since !== current.started_at) {
        tracker = new PeakTracker(samplesPath, current.started_at);
        this.#peaks.set(name, tracker);
      }
      const peak = tracker.update();
      currentCall = { ...current, running_ms: Math.max(0, Math.round(now - current.started_at)), peak_mem_mb: peak.mem_mb, peak_from: peak.from };
    } else this.#peaks.delete(name);
    return {
      session_id: markers.sessionId ?? name,
      dir_name: name,
      agent: markers.agent ?? null,
      cwd: markers.cwd ?? null,
      agent_pid: agent?.pid ?? null,
      started_at: startedAt,
      running_ms: startedAt === null ? null : Math.max(0, Math.round(now - startedAt)),
      last_marker_at: markers.lastAt ?? null,
      sampler: { state: sampler.state, pid: sampler.pid, reason: sampler.reason },
      now: latest ? { sampled_at: latest.at, mem_mb: latest.mem_mb, cpu_pct: latest.cpu_pct, n_procs: latest.n_procs } : null,
      current_call: currentCall,
      open_calls: open.length,
      last_calls: markers.endedCalls.map((c: EndedCall) => ({ ...c })),
    };
  }
}

/** One snapshot of the sessions running now (`cordon top --once` and `--json`). */
export function readTopSnapshot(options: TopReaderOptions & { readonly sort: TopSortKey; readonly now?: number }): TopSnapshot {
  return new TopReader(options).snapshot(options.sort, options.now);
}
