import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HANG_BOUND_MS, makeSandbox, runCordon, type RunResult, type Sandbox } from '../../../../../test/support/cli.js';
import { sessionDir } from '../../../src/telemetry/session-dir.js';
import { call, marker, samples } from './helpers.js';

// `cordon reduce` through the built bin: a thin command over reduce().

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-reduce-cli-');
});
afterEach(() => sandbox.cleanup());

const T = 1_800_000_000_000;

describe('cordon reduce', () => {
  it('prints the session summary with --json and one record per call with --jsonl', async () => {
    marker(sandbox.dataDir, 'cli-session', 'session_start', T);
    call(sandbox.dataDir, 'cli-session', 'k1', T + 100, T + 900, { command: 'node -e big' });
    call(sandbox.dataDir, 'cli-session', 'k2', T + 1000, T + 1010, { command: 'true' });
    samples(sandbox.dataDir, 'cli-session', [
      { t: T + 250, mb: 400 },
      { t: T + 500, mb: 450 },
      { t: T + 1250, mb: 100 },
    ]);
    const json = await runCordon(['reduce', '--session', 'cli-session', '--json'], { env: sandbox.env });
    expect(json.exitCode, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.db).toBe(`${sandbox.dataDir}/telemetry.sqlite3`);
    expect(report.sessions).toHaveLength(1);
    expect(report.sessions[0]).toMatchObject({ session_id: 'cli-session', n_toolcalls: 2, short_calls: 1, peak_memory_mb: 450, span_ms: 1000 });

    const jsonl = await runCordon(['reduce', '--jsonl'], { env: sandbox.env });
    expect(jsonl.exitCode, jsonl.stderr).toBe(0);
    const records = jsonl.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(records.map((r) => [r.seq, r.command, r.peak_memory_mb, r.n_samples])).toEqual([
      [1, 'node -e big', 450, 2],
      [2, 'true', null, 0],
    ]);

    const human = await runCordon(['reduce'], { env: sandbox.env });
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain('session cli-session (claude-code): 2 calls, 3 samples');
    expect(human.stdout).toContain('shorter than a tick 1');
  }, 60_000);

  it('the text names how each call ended: ok, or failed with its exit code', async () => {
    call(sandbox.dataDir, 'exits', 'k1', T + 100, T + 900, { command: 'npm test', exit_status: 'failed', exit_code: 1 });
    call(sandbox.dataDir, 'exits', 'k2', T + 1000, T + 1010, { command: 'true', exit_status: 'ok', exit_code: 0 });
    for (const args of [['reduce', '--session', 'exits'], ['reduce', '--session', 'exits', '--db', join(sandbox.root, 'other.sqlite3')]]) {
      const human = await runCordon(args, { env: sandbox.env });
      expect(human.exitCode, human.stderr).toBe(0);
      const lines = human.stdout.split('\n');
      // Neither call holds a sample (none was taken): said so, not as `peak - MiB cpu - %`.
      expect(lines.find((l) => l.includes('npm test'))).toBe('  #1 Bash 0.80 s no samples failed exit 1  npm test');
      expect(lines.find((l) => l.endsWith('  true'))).toBe('  #2 Bash 0.01 s no samples ok  true');
      expect(lines[1]).toMatch(/; memory: no samples$/);
      expect(human.stdout).not.toMatch(/- (MiB|%)/);
    }
    // With samples, the figures and their units.
    samples(sandbox.dataDir, 'exits', [{ t: T + 500, mb: 120, cpu: 50 }]);
    const sampled = (await runCordon(['reduce', '--session', 'exits'], { env: sandbox.env })).stdout.split('\n');
    expect(sampled.find((l) => l.includes('npm test'))).toBe('  #1 Bash 0.80 s peak 120.0 MiB cpu 50.0 % failed exit 1  npm test');
    expect(sampled[1]).toMatch(/; memory p10 120\.0 MiB, peak 120\.0 MiB$/);
  }, 60_000);

  it('exits 2 naming the input for an unknown session or conflicting flags', async () => {
    call(sandbox.dataDir, 'present', 'k', T, T + 10);
    const missing = await runCordon(['reduce', '--session', 'absent-session'], { env: sandbox.env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--session "absent-session"');
    const both = await runCordon(['reduce', '--jsonl', '--json'], { env: sandbox.env });
    expect(both.exitCode).toBe(2);
    expect(both.stdout + both.stderr).toContain('--jsonl and --json');
    const exclusive = await runCordon(['reduce', '--all', '--session', 'present'], { env: sandbox.env });
    expect(exclusive.exitCode).toBe(2);
  }, 60_000);
});

describe('the fast route of cordon reduce (bin/run.cjs, without oclif)', () => {
  /** Runs `cordon reduce args` through the fast route and through oclif (CORDON_NO_FAST_ROUTE=1). */
  async function both(args: string[]): Promise<[RunResult, RunResult]> {
    const fast = await runCordon(['reduce', ...args], { env: sandbox.env });
    const oclif = await runCordon(['reduce', ...args], { env: { ...sandbox.env, CORDON_NO_FAST_ROUTE: '1' } });
    return [fast, oclif];
  }

  it('prints what the oclif command prints, for text, --json and --jsonl (skipped lines on stderr)', async () => {
    marker(sandbox.dataDir, 'fast-a', 'session_start', T);
    call(sandbox.dataDir, 'fast-a', 'k1', T + 100, T + 900, { command: 'node -e "big   %s %d"' });
    call(sandbox.dataDir, 'fast-a', 'k2', T + 1000, T + 1010, { command: 'true', exit_status: 'failed', exit_code: 1 });
    samples(sandbox.dataDir, 'fast-a', [
      { t: T + 250, mb: 400, cpu: 12.5 },
      { t: T + 500, mb: 450 },
      { t: T + 1250, mb: 100 },
    ]);
    // A torn sample line (a killed sampler), then a CRLF one.
    appendFileSync(join(sessionDir(sandbox.dataDir, 'fast-a'), 'samples.jsonl'), '{"t":1800000001500,"mem_mb":\n{"t":1800000001750,"mem_mb":90}\r\n');
    call(sandbox.dataDir, 'fast-b', 'k3', T + 5000, T + 6000, { command: 'ls' });
    // The first reduce migrates the new database; the next runs load the bundle from the code cache.
    for (const args of [['--all'], ['--all'], ['--session', 'fast-a', '--json'], ['--jsonl', '--all'], ['--session=fast-b', '--jsonl'], []]) {
      const [fast, oclif] = await both(args);
      expect(fast.exitCode, `${args.join(' ')}: ${fast.stderr}`).toBe(0);
      expect(oclif.exitCode).toBe(0);
      expect(fast.stdout, args.join(' ')).toBe(oclif.stdout);
      expect(fast.stderr, args.join(' ')).toBe(oclif.stderr);
    }
    const [text] = await both(['--session', 'fast-a']);
    expect(text.stdout).toContain('session fast-a (claude-code): 2 calls, 4 samples');
    expect(text.stdout).toContain('skipped 1 unreadable sample line');
    expect(text.stdout).toContain('node -e "big %s %d"');
  }, 120_000);

  it('runs without loading oclif, and a refusal is rendered by the oclif command (exit 2, the same message)', async () => {
    call(sandbox.dataDir, 'fast-c', 'k', T, T + 10);
    expect((await runCordon(['reduce'], { env: sandbox.env })).exitCode).toBe(0);
    // Reports at exit whether @oclif/core was loaded in the process.
    const probe = join(sandbox.root, 'probe.cjs');
    writeFileSync(probe, `process.on('exit', () => process.stderr.write('oclif loaded: ' + Object.keys(require.cache).some((p) => p.includes('@oclif/core')) + '\\n'));\n`);
    const env = { ...sandbox.env, NODE_OPTIONS: `--require ${probe}` };
    const plain = await runCordon(['reduce', '--session', 'fast-c', '--jsonl'], { env });
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stderr).toBe('oclif loaded: false\n');
    const missing = await runCordon(['reduce', '--session', 'absent-session'], { env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--session "absent-session"');
    expect(missing.stderr).toContain('oclif loaded: true');
    const [fastMissing, oclifMissing] = await both(['--session', 'absent-session', '--json']);
    expect(fastMissing.exitCode).toBe(2);
    expect(fastMissing.stdout).toBe(oclifMissing.stdout);
    // A new database file once the bundle runs from the code cache: migrating needs kysely, which
    // the bundle cannot import() there on Node 20, so that run goes through oclif.
    const fresh = join(sandbox.dir('fresh'), 'telemetry.sqlite3');
    const migrated = await runCordon(['reduce', '--session', 'fast-c', '--db', fresh, '--json'], { env: sandbox.env });
    expect(migrated.exitCode, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout)).toMatchObject({ db: fresh, sessions: [{ session_id: 'fast-c', n_toolcalls: 1 }] });
    const db = new Database(fresh, { readonly: true });
    expect(db.prepare('select count(*) from tool_calls').pluck().get()).toBe(1);
    db.close();
  }, 120_000);
});

// Found by a hostile-input probe: a FIFO in place of a session's markers.jsonl (or of the store)
// made reduce and analyze wait for a writer forever, and a directory there ended them with a
// bare EISDIR and exit 1. Each is now a CORDON_BAD_STATE / CORDON_DB_ERROR naming the file, exit 2.
describe('a session file or store that is not a regular file', () => {
  const routes = [{}, { CORDON_NO_FAST_ROUTE: '1' }] as Array<Record<string, string>>;

  it('refuses a FIFO or a directory as markers.jsonl or samples.jsonl, naming it, exit 2, without waiting', async () => {
    const cases: Array<[string, string, (path: string) => void]> = [
      ['fifo-m', 'markers.jsonl', (path) => execFileSync('mkfifo', [path])],
      ['dir-m', 'markers.jsonl', (path) => mkdirSync(path)],
      ['fifo-s', 'samples.jsonl', (path) => execFileSync('mkfifo', [path])],
    ];
    for (const [session, file, make] of cases) {
      marker(sandbox.dataDir, session === 'fifo-s' ? session : 'other', 'session_start', T);
      const dir = sessionDir(sandbox.dataDir, session);
      mkdirSync(dir, { recursive: true });
      make(join(dir, file));
      const kind = session.startsWith('fifo') ? 'a FIFO' : 'a directory';
      for (const env of routes) {
        const r = await runCordon(['reduce', '--session', session, '--json'], { env: { ...sandbox.env, ...env }, timeoutMs: HANG_BOUND_MS });
        expect([session, env, r.exitCode]).toEqual([session, env, 2]);
        const error = JSON.parse(r.stdout).error;
        expect(error.code).toBe('CORDON_BAD_STATE');
        expect(error.message).toBe(`cannot read the session file ${join(dir, file)}: is not a regular file (${kind}); move it away to read the rest`);
        // analyze goes on without a session it cannot read, and says which and why (its skipped-sessions table).
        const analyze = await runCordon(['analyze', '--all', '--json'], { env: { ...sandbox.env, ...env }, timeoutMs: HANG_BOUND_MS });
        expect([session, env, analyze.exitCode]).toEqual([session, env, 0]);
        expect(JSON.stringify(JSON.parse(analyze.stdout))).toContain(`cannot read the session file ${join(dir, file)}: is not a regular file (${kind})`);
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // `reduce --all` stopped at the first such session, exit 2, and stored none of the others,
  // while `analyze --all` went on without it: both now go on, and say which session and why.
  it('reduce --all goes on without a session it cannot read, stores the others and names it on stderr; exit 2 only when none can be read', async () => {
    marker(sandbox.dataDir, 'good', 'session_start', T);
    call(sandbox.dataDir, 'good', 'k1', T + 100, T + 900, { command: 'true' });
    const bad = sessionDir(sandbox.dataDir, 'bad');
    mkdirSync(bad, { recursive: true });
    execFileSync('mkfifo', [join(bad, 'markers.jsonl')]);
    const why = `cannot read the session file ${join(bad, 'markers.jsonl')}: is not a regular file (a FIFO); move it away to read the rest`;
    for (const env of routes) {
      const e = { ...sandbox.env, ...env };
      rmSync(join(sandbox.dataDir, 'telemetry.sqlite3'), { force: true });
      const text = await runCordon(['reduce', '--all'], { env: e, timeoutMs: HANG_BOUND_MS });
      expect([env, text.exitCode, text.stderr]).toEqual([env, 0, `cordon reduce: session bad skipped: ${why}\n`]);
      expect(text.stdout).toContain('session good (claude-code): 1 call');
      const db = new Database(join(sandbox.dataDir, 'telemetry.sqlite3'), { readonly: true });
      try {
        expect(db.prepare('SELECT session_id FROM sessions').all()).toEqual([{ session_id: 'good' }]);
      } finally {
        db.close();
      }
      const json = await runCordon(['reduce', '--all', '--json'], { env: e, timeoutMs: HANG_BOUND_MS });
      expect([env, json.exitCode]).toEqual([env, 0]);
      const report = JSON.parse(json.stdout);
      expect(report.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(['good']);
      expect(report.skipped).toEqual([{ session: 'bad', reason: why }]);
      const jsonl = await runCordon(['reduce', '--all', '--jsonl'], { env: e, timeoutMs: HANG_BOUND_MS });
      expect([env, jsonl.exitCode, jsonl.stdout.trim().split('\n').length, jsonl.stderr]).toEqual([env, 0, 1, `cordon reduce: session bad skipped: ${why}\n`]);
    }
    // Nothing readable at all: refused, naming the file, as for the one session asked for.
    rmSync(sessionDir(sandbox.dataDir, 'good'), { recursive: true, force: true });
    for (const env of routes) {
      const r = await runCordon(['reduce', '--all', '--json'], { env: { ...sandbox.env, ...env }, timeoutMs: HANG_BOUND_MS });
      expect([env, r.exitCode]).toEqual([env, 2]);
      expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'CORDON_BAD_STATE', message: why });
    }
  });

  it('refuses a directory or a FIFO as the default telemetry store, naming it, exit 2', async () => {
    const store = join(sandbox.dataDir, 'telemetry.sqlite3');
    marker(sandbox.dataDir, 'stored', 'session_start', T);
    for (const make of [() => mkdirSync(store), () => execFileSync('mkfifo', [store])]) {
      make();
      for (const env of routes) {
        for (const args of [['reduce', '--all'], ['analyze', '--all']]) {
          const r = await runCordon(args, { env: { ...sandbox.env, ...env }, timeoutMs: HANG_BOUND_MS });
          expect([args, env, r.exitCode]).toEqual([args, env, 2]);
          expect(r.stderr).toMatch(new RegExp(`${store.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be opened as an SQLite database: is not a regular file \\((a directory|a FIFO)\\); it was left unchanged`));
          expect(r.stderr).toContain('CORDON_DB_ERROR');
        }
      }
      rmSync(store, { recursive: true, force: true });
    }
  });
});

// A hostile-input probe of the reports: marker and sample lines that parse as JSON but are not
// what cordon writes.
describe('marker and sample lines of the wrong shape', () => {
  const raw = (session: string, file: string, lines: readonly unknown[]): void => {
    const dir = sessionDir(sandbox.dataDir, session);
    mkdirSync(dir, { recursive: true });
    appendFileSync(join(dir, file), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  };

  // `"command": 42` or `"tool_name": {…}` went to SQLite as they were: reduce stopped with
  // CORDON_INTERNAL "SQLite3 can only bind numbers, strings, …" (exit 1), and analyze skipped the session.
  it('a marker with a field of another type is an unreadable line, counted; the rest is reduced', async () => {
    call(sandbox.dataDir, 'typed', 'good', T + 100, T + 900, { command: 'npm test' });
    const base = { v: 1, session_id: 'typed', agent: 'claude-code', native_event: 'PreToolUse', hook_pid: 1, hook_overhead_ms: 5 };
    raw('typed', 'markers.jsonl', [
      { ...base, event: 'tool_start', ts: T + 1000, call_key: 'bad', tool_name: { a: 1 }, command: 42 },
      { ...base, event: 'tool_end', ts: T + 2000, call_key: 'bad', tool_name: 'Bash', exit_status: 7, exit_code: '1' },
      { ...base, event: 'tool_start', ts: T + 3000, call_key: { o: 1 }, tool_name: 'Bash', command: 'ls' },
      { ...base, event: 'tool_end', ts: T + 4000, call_key: 'x', tool_name: 'Bash', feedback_by: [1], loop_repeat: 'yes' },
    ]);
    for (const env of [{}, { CORDON_NO_FAST_ROUTE: '1' }]) {
      const r = await runCordon(['reduce', '--session', 'typed', '--json'], { env: { ...sandbox.env, ...env } });
      expect([env, r.exitCode, r.stderr]).toEqual([env, 0, '']);
      expect(JSON.parse(r.stdout).sessions[0]).toMatchObject({ n_toolcalls: 1, bad_markers: 4, unpaired_starts: 0, orphan_ends: 0 });
      const text = await runCordon(['reduce', '--session', 'typed'], { env: { ...sandbox.env, ...env } });
      expect(text.exitCode, text.stderr).toBe(0);
      expect(text.stdout).toContain('skipped 4 unreadable marker lines');
    }
    const analyze = await runCordon(['analyze', '--all', '--json'], { env: sandbox.env });
    expect(analyze.exitCode, analyze.stderr).toBe(0);
    expect(JSON.parse(analyze.stdout).failed).toEqual([]);
  }, 60_000);

  // Times of ±1.7e308 and memory of 1e308 were taken as read: the text said "over Infinity s",
  // "NaN % of the sampled span", "peak 1e+308 MiB", and --json had `span_ms: null`.
  it('a time outside 0 to 8.64e15 ms or a measure no sampler writes is an unreadable line; no report says Infinity or NaN', async () => {
    call(sandbox.dataDir, 'huge', 'good', T + 100, T + 900, { command: 'npm test' });
    const base = { v: 1, session_id: 'huge', agent: 'claude-code', native_event: 'PreToolUse', hook_pid: 1, hook_overhead_ms: 5, tool_name: 'Bash', tool: 'shell' };
    raw('huge', 'markers.jsonl', [
      { ...base, event: 'tool_start', ts: -1.7e308, call_key: 'far' },
      { ...base, event: 'tool_end', ts: 1.7e308, call_key: 'far', exit_status: 'ok' },
    ]);
    raw('huge', 'samples.jsonl', [
      { t: T + 500, mem_mb: 10, cpu_pct: 5, n_procs: 1, partial: false },
      { t: -1.7e308, mem_mb: 1, cpu_pct: 0, n_procs: 1, partial: false },
      { t: T + 600, mem_mb: 1e308, cpu_pct: 0, n_procs: 1, partial: false },
      { t: T + 700, mem_mb: -5, cpu_pct: 0, n_procs: 1, partial: false },
      { t: T + 800, mem_mb: 20, cpu_pct: 1e308, n_procs: -3, partial: false },
    ]);
    const r = await runCordon(['reduce', '--session', 'huge', '--json'], { env: sandbox.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).sessions[0]).toMatchObject({ n_toolcalls: 1, bad_markers: 2, n_samples: 2, bad_samples: 3, span_ms: 300, peak_memory_mb: 20, avg_memory_mb: 15, avg_cpu_pct: 2.5 });
    const text = await runCordon(['reduce', '--session', 'huge'], { env: sandbox.env });
    const md = await runCordon(['analyze', '--session', 'huge', '--format', 'md'], { env: sandbox.env });
    for (const out of [text, md]) {
      expect(out.exitCode, out.stderr).toBe(0);
      expect(out.stdout).not.toMatch(/Infinity|NaN|e\+308/);
    }
  }, 60_000);
});

describe('control run records of the wrong shape', () => {
  // reduce joins each guarded call with the `control run` that ran it (control/guard-join.ts), from
  // <data>/control/runs.jsonl: a line there is data like any other, written by another version or damaged.
  it('a run record with a field of another type joins no call, and reduce reports the session as before', async () => {
    call(sandbox.dataDir, 'guarded', 'k1', T + 100, T + 900, { command: 'npm test' });
    const good = {
      t: T + 800, start_t: T + 200, session_id: 'guarded', argv: ['bash', '-c', 'npm test'], command: 'bash -c npm test', cwd: '/w', hint: null, backend: null, enforced: false,
      domain: null, placement: null, tier: 'medium', final_tier: 'medium', limit_bytes: 1024, ram_bytes: 4096, cpu_weight: 100, peak_bytes: null, peak_source: null,
      stall_full_ms: null, stall_source: null, throttled_ms: null, stall_some_ms: null, cpu_stall_some_ms: null, events: {}, cpu_stat: {}, frozen_count: 0, frozen_ms: 0,
      escalations: [], wall_ms: 600, exit_code: 0, signal: null, removed: null, ended: [], warned: false, warning_number: null,
    };
    const bad = [
      { ...good, argv: ['bash', '-c', 42] },
      { ...good, argv: ['bash', 42, 'npm test'] },
      { ...good, limit_bytes: 'lots' },
      { ...good, peak_bytes: { a: 1 } },
      { ...good, stall_full_ms: '5' },
      { ...good, events: 'oom' },
      { ...good, events: { oom: 'x' } },
      { ...good, exit_code: '0' },
      { ...good, tier: 7 },
      { ...good, final_tier: null },
      { ...good, backend: 3 },
      { ...good, enforced: 'yes' },
      { ...good, warned: 1 },
    ];
    mkdirSync(join(sandbox.dataDir, 'control'), { recursive: true });
    writeFileSync(join(sandbox.dataDir, 'control', 'runs.jsonl'), bad.map((r) => `${JSON.stringify(r)}\n`).join(''));
    for (const env of [{}, { CORDON_NO_FAST_ROUTE: '1' }]) {
      const jsonl = await runCordon(['reduce', '--session', 'guarded', '--jsonl'], { env: { ...sandbox.env, ...env } });
      expect([env, jsonl.exitCode, jsonl.stderr]).toEqual([env, 0, '']);
      expect(jsonl.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { guard?: unknown }).guard)).toEqual([undefined]);
      const text = await runCordon(['reduce', '--session', 'guarded'], { env: { ...sandbox.env, ...env } });
      expect([env, text.exitCode, text.stderr]).toEqual([env, 0, '']);
      expect(text.stdout).toContain('npm test');
      expect(text.stdout).not.toMatch(/\[guard|NaN|undefined|\[object/);
    }
    // The same record with every field of its type joins the call.
    appendFileSync(join(sandbox.dataDir, 'control', 'runs.jsonl'), `${JSON.stringify(good)}\n`);
    const joined = await runCordon(['reduce', '--session', 'guarded', '--jsonl'], { env: sandbox.env });
    expect(joined.exitCode, joined.stderr).toBe(0);
    expect((JSON.parse(joined.stdout.trim()) as { guard?: unknown }).guard).toMatchObject({ tier: 'medium', limit_bytes: 1024, exit_code: 0 });
    expect((await runCordon(['reduce', '--session', 'guarded'], { env: sandbox.env })).stdout).toContain('[guard medium');
  }, 60_000);

  // A FIFO there held `cordon reduce` until something wrote to it (control/guard-join.ts reads it non-blocking now).
  it('a FIFO in place of runs.jsonl reads as no runs', async () => {
    call(sandbox.dataDir, 'fifo', 'k1', T + 100, T + 900, { command: 'npm test' });
    mkdirSync(join(sandbox.dataDir, 'control'), { recursive: true });
    execFileSync('mkfifo', [join(sandbox.dataDir, 'control', 'runs.jsonl')]);
    for (const env of [{}, { CORDON_NO_FAST_ROUTE: '1' }]) {
      const r = await runCordon(['reduce', '--session', 'fifo'], { env: { ...sandbox.env, ...env }, timeoutMs: HANG_BOUND_MS });
      expect([env, r.exitCode, r.stderr]).toEqual([env, 0, '']);
      expect(r.stdout).toContain('npm test');
    }
  }, 60_000);
});
