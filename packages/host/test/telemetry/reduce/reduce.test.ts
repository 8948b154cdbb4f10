import { appendFileSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/errors/index.js';
import { pairCalls, reduce, reduceSession, sampledSpan, unionLength, windowStats } from '../../../src/telemetry/reduce/index.js';
import { sessionDir } from '../../../src/telemetry/session-dir.js';
import { call, marker, samples } from './helpers.js';
import type { Marker } from '../../../src/telemetry/markers.js';

let data: string;
beforeEach(() => {
  data = mkdtempSync(join(tmpdir(), 'cordon-reduce-'));
});
afterEach(() => rmSync(data, { recursive: true, force: true }));

const T = 1_800_000_000_000; // epoch ms

describe('the sampled span', () => {
  const at = (...ts: number[]) => ts.map((t) => ({ t: T + t, mem_mb: 1, cpu_pct: 0, n_procs: 1, partial: false }));
  const end = (ts: number) => ({ v: 1, event: 'session_end', ts: T + ts, session_id: 's', agent: 'aider', native_event: 'wrap-exit', hook_overhead_ms: 0, hook_pid: 1 }) as Marker;

  it('starts where sampling was asked for and ends at a session end that came between the last tick and the sampler\'s stop', () => {
    const events = [{ event: 'start', t: T + 130, pid: 9, generation: 1, since: T }, { event: 'stop', t: T + 1750, pid: 9, generation: 1, reason: 'agent-exit' }];
    expect(sampledSpan(at(380, 630, 880, 1130, 1380), events, [end(1502)])).toEqual({ start: T, end: T + 1502 });
    // No samples: no span. A start event without `since` (an older sampler): the first sample.
    expect(sampledSpan([], events, [end(1502)])).toBeUndefined();
    expect(sampledSpan(at(380, 1380), [{ ...events[0]!, since: undefined }, events[1]!], [])).toEqual({ start: T + 380, end: T + 1380 });
    // A session end after a sampler that stopped on its own (idle) is not sampled time; nor one before the last sample.
    const idle = [events[0]!, { ...events[1]!, reason: 'idle' }];
    expect(sampledSpan(at(380, 1380), idle, [end(1800)])).toEqual({ start: T, end: T + 1380 });
    // A sampler that stopped because the agent exited saw the exit by then: a session end written
    // after it (wrap was slower to run than the sampler's tick) ends the span at that stop.
    expect(sampledSpan(at(380, 1380), events, [end(1800)])).toEqual({ start: T, end: T + 1750 });
    expect(sampledSpan(at(380, 1380), events, [end(1300)])).toEqual({ start: T, end: T + 1380 });
    // Without a stop event (the sampler still runs or was SIGKILLed) the span ends at the last sample.
    expect(sampledSpan(at(380, 1380), [events[0]!], [end(1502)])).toEqual({ start: T, end: T + 1380 });
  });

  it('reduce uses it for the span and the tool-time fraction', () => {
    marker(data, 's', 'session_start', T);
    call(data, 's', 'early', T + 10, T + 300); // before the first tick
    samples(data, 's', [{ t: T + 400, mb: 5 }, { t: T + 1400, mb: 5 }]);
    const dir = sessionDir(data, 's');
    writeFileSync(join(dir, 'sampler.jsonl'), `${JSON.stringify({ event: 'start', t: T + 150, pid: 9, generation: 1, since: T })}\n`);
    const { summary } = reduceSession(dir);
    expect(summary).toMatchObject({ span_start_ts: T, span_end_ts: T + 1400, span_ms: 1400, live: false, tool_time_fraction: 0.2071 });
  });
});

describe('pairing and windows', () => {
  it('pairs an end with the most recent start of the same key; leftovers are unpaired starts and orphan ends', () => {
    marker(data, 's', 'tool_start', T + 100, { call_key: 'k', command: 'outer' });
    marker(data, 's', 'tool_start', T + 200, { call_key: 'k', command: 'inner' });
    marker(data, 's', 'tool_end', T + 300, { call_key: 'k', command: 'inner' });
    marker(data, 's', 'tool_end', T + 400, { call_key: 'k', command: 'outer' });
    marker(data, 's', 'tool_start', T + 500, { call_key: 'never-ends' });
    marker(data, 's', 'tool_end', T + 600, { call_key: 'never-started' });
    marker(data, 's', 'tool_denied', T + 700, { call_key: 'denied', exit_status: 'denied' });
    const { summary, calls } = reduceSession(sessionDir(data, 's'));
    expect(calls.map((c) => [c.command, c.start_ts - T, c.end_ts - T])).toEqual([
      ['outer', 100, 400],
      ['inner', 200, 300],
    ]);
    expect(summary).toMatchObject({ n_toolcalls: 2, unpaired_starts: 1, orphan_ends: 1, denied_calls: 1 });
  });

  it('sorts markers by ts before pairing (concurrent hooks append out of order)', () => {
    marker(data, 's', 'tool_end', T + 300, { call_key: 'a' });
    marker(data, 's', 'tool_start', T + 100, { call_key: 'a' });
    const { summary, calls } = reduceSession(sessionDir(data, 's'));
    expect(summary).toMatchObject({ n_toolcalls: 1, orphan_ends: 0, unpaired_starts: 0 });
    expect(calls[0]!.duration_ms).toBe(200);
  });

  it('joins samples inclusively at both ends; a call with none is shorter than a tick and has null values', () => {
    call(data, 's', 'big', T + 1000, T + 2000);
    call(data, 's', 'tiny', T + 2100, T + 2150);
    samples(data, 's', [
      { t: T + 750, mb: 100 },
      { t: T + 1000, mb: 150, cpu: 10 },
      { t: T + 1500, mb: 500, cpu: 90 },
      { t: T + 2000, mb: 120, cpu: 20 },
      { t: T + 2250, mb: 100 },
    ]);
    const { summary, calls } = reduceSession(sessionDir(data, 's'));
    expect(calls[0]).toMatchObject({ n_samples: 3, peak_memory_mb: 500, avg_memory_mb: 256.667, avg_cpu_pct: 40 });
    expect(calls[1]).toMatchObject({ n_samples: 0, peak_memory_mb: null, avg_memory_mb: null, avg_cpu_pct: null });
    expect(summary.short_calls).toBe(1);
  });

  it('pairCalls ignores events other than tool start and end', () => {
    const base = { v: 1, session_id: 's', agent: 'x', native_event: 'x', hook_overhead_ms: 1, hook_pid: 1 } as const;
    const p = pairCalls([
      { ...base, event: 'turn_end', ts: 1 },
      { ...base, event: 'tool_start', ts: 2, call_key: 'a' },
      { ...base, event: 'session_end', ts: 3 },
      { ...base, event: 'tool_end', ts: 4, call_key: 'a' },
    ]);
    expect(p.calls.map((c) => [c.start.ts, c.end.ts])).toEqual([[2, 4]]);
  });

  it('windowStats binary-searches sorted samples', () => {
    const s = [10, 20, 30, 40].map((t) => ({ t, mem_mb: t, cpu_pct: 1, n_procs: 1, partial: false }));
    expect(windowStats(s, 20, 30)).toEqual({ n: 2, peakMb: 30, avgMb: 25, avgCpuPct: 1 });
    expect(windowStats(s, 41, 50)).toEqual({ n: 0 });
    expect(windowStats(s, 0, 10).n).toBe(1);
  });

  it('tool time is the union of call windows; its fraction is clipped to the sampled span', () => {
    call(data, 's', 'a', T + 0, T + 1000);
    call(data, 's', 'b', T + 500, T + 1500); // overlaps a
    call(data, 's', 'c', T + 3000, T + 3500);
    samples(data, 's', Array.from({ length: 17 }, (_, i) => ({ t: T + 250 * i, mb: 100 + i })));
    const { summary } = reduceSession(sessionDir(data, 's'));
    expect(summary.span_ms).toBe(4000);
    expect(summary.tool_time_ms).toBe(2000);
    expect(summary.tool_time_fraction).toBe(0.5);
    expect(unionLength([[0, 1], [0.5, 2], [5, 6], [6, 6]])).toBe(3);
  });

  it('counts partial samples, bad sample and marker lines, and reports the p10 baseline and the peak', () => {
    samples(data, 's', Array.from({ length: 20 }, (_, i) => ({ t: T + 250 * i, mb: 100 + 10 * i, partial: i % 5 === 0 })));
    marker(data, 's', 'session_start', T - 10);
    const dir = sessionDir(data, 's');
    appendFileSync(join(dir, 'samples.jsonl'), 'not json\n{"t":"x","mem_mb":1}\n');
    appendFileSync(join(dir, 'markers.jsonl'), '{"v":2,"event":"tool_start"}\n{oops\n');
    writeFileSync(join(dir, 'sampler.jsonl'), '{"event":"start","t":1,"pid":5,"generation":1}\n{"event":"stop","t":2,"pid":5,"generation":1,"reason":"stop-file"}\n');
    const { summary } = reduceSession(dir);
    expect(summary).toMatchObject({
      session_id: 's',
      agent: 'claude-code',
      n_samples: 20,
      bad_samples: 2,
      n_markers: 1,
      bad_markers: 2,
      partial_samples: 4,
      baseline_memory_mb: 120,
      peak_memory_mb: 290,
      first_ts: T - 10,
      last_ts: T + 250 * 19,
      ended: false,
      sampler_starts: 1,
      sampler_stop_reasons: ['stop-file'],
    });
  });
});

describe('reduce into SQLite', () => {
  it('stores calls, samples and the summary through the migrated schema, and replaces them on a second run', async () => {
    call(data, 'sess-1', 'k1', T + 0, T + 1000);
    samples(data, 'sess-1', [{ t: T + 500, mb: 300, cpu: 50 }]);
    marker(data, 'sess-1', 'session_end', T + 2000);
    const first = await reduce({ dataDir: data, session: 'sess-1' });
    expect(first.db).toBe(join(data, 'telemetry.sqlite3'));
    call(data, 'sess-1', 'k2', T + 1100, T + 1200);
    await reduce({ dataDir: data, session: 'sess-1' });
    const db = new Database(first.db, { readonly: true });
    try {
      expect(db.prepare('select name from kysely_migration').pluck().all()).toEqual(['0001_sessions_tool_calls_samples', '0002_machine', '0003_cordon_cost', '0004_loop_breaker', '0005_sampled_span']);
      expect(db.prepare('select seq, call_key, peak_memory_mb, n_samples from tool_calls order by seq').all()).toEqual([
        { seq: 1, call_key: 'k1', peak_memory_mb: 300, n_samples: 1 },
        { seq: 2, call_key: 'k2', peak_memory_mb: null, n_samples: 0 },
      ]);
      expect(db.prepare('select session_id, n_toolcalls, ended, short_calls, sampler_stop_reasons from sessions').all()).toEqual([{ session_id: 'sess-1', n_toolcalls: 2, ended: 1, short_calls: 1, sampler_stop_reasons: '[]' }]);
      expect(db.prepare('select count(*) from samples').pluck().get()).toBe(1);
    } finally {
      db.close();
    }
  });

  it('finds a session by its raw id even when the directory name is sanitised', async () => {
    const raw = 'odd/id with spaces';
    call(data, raw, 'k', T, T + 10);
    const { sessions } = await reduce({ dataDir: data, session: raw });
    expect(sessions[0]!.summary.session_id).toBe(raw);
    expect(sessions[0]!.summary.dir).toBe(sessionDir(data, raw));
  });

  it('reduces the most recently active session by default and every session with all', async () => {
    call(data, 'old', 'k', T, T + 10);
    call(data, 'new', 'k', T, T + 10);
    // Activity is the files' mtime: 'old' was last written an hour ago (set, not waited for).
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(sessionDir(data, 'old'), 'markers.jsonl'), hourAgo, hourAgo);
    expect((await reduce({ dataDir: data })).sessions.map((s) => s.summary.session_id)).toEqual(['new']);
    expect((await reduce({ dataDir: data, all: true })).sessions.map((s) => s.summary.session_id).sort()).toEqual(['new', 'old']);
  });

  it('refuses an unknown session or an empty data dir with CORDON_BAD_INPUT naming the input', async () => {
    await expect(reduce({ dataDir: data })).rejects.toMatchObject({ code: ERROR_CODES.BAD_INPUT, exit: 2 });
    call(data, 'there', 'k', T, T + 10);
    await expect(reduce({ dataDir: data, session: 'missing-id' })).rejects.toThrow(/--session "missing-id": no recorded session/);
    await expect(reduce({ dataDir: data, session: 'missing-id' })).rejects.toThrow(/\(known: there\)$/);
  });

  it('lists at most five known sessions for an unknown --session and says how many more there are', async () => {
    for (const name of ['s1', 's2', 's3', 's4', 's5', 's6', 's7']) call(data, name, 'k', T, T + 10);
    const error = await reduce({ dataDir: data, session: 'nosuch' }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/\(known: (s\d, ){4}s\d … and 2 more\)$/);
    rmSync(sessionDir(data, 's7'), { recursive: true });
    rmSync(sessionDir(data, 's6'), { recursive: true });
    const exact = await reduce({ dataDir: data, session: 'nosuch' }).catch((e: Error) => e);
    expect((exact as Error).message).toMatch(/\(known: (s\d, ){4}s\d\)$/);
    expect((exact as Error).message).not.toContain('more');
  });

  it('leaves a database written by a newer cordon, or a file that is not SQLite, unchanged', async () => {
    call(data, 's', 'k', T, T + 10);
    const path = join(data, 'telemetry.sqlite3');
    await reduce({ dataDir: data });
    const db = new Database(path);
    db.prepare(`insert into kysely_migration (name, timestamp) values ('0002_from_the_future', '2030-01-01')`).run();
    db.close();
    const digest = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
    const before = digest(path);
    await expect(reduce({ dataDir: data })).rejects.toMatchObject({ code: ERROR_CODES.DB_ERROR, message: expect.stringMatching(/0002_from_the_future.*newer cordon/) });
    expect(digest(path)).toBe(before);
    const junk = join(data, 'junk.sqlite3');
    writeFileSync(junk, 'hello, not a database');
    await expect(reduce({ dataDir: data, db: junk })).rejects.toMatchObject({ code: ERROR_CODES.DB_ERROR });
    expect(readFileSync(junk, 'utf8')).toBe('hello, not a database');
  });
});
