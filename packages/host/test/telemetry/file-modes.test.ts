import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPlugins, makeSandbox, runProcess, type Sandbox } from '../../../../test/support/cli.js';
import { waitFor } from '../../../../test/support/wait.js';
import { ensurePrivateFile, tightenPrivateFile } from '../../src/io/index.js';
import { Ledger } from '../../src/ledger/index.js';
import { openTelemetryDb } from '../../src/telemetry/reduce/db/open.js';

// Issue 13 item 10: everything cordon writes that holds user content is owner-only whatever the
// umask: directories 0700, files 0600 (the ledger and its -wal/-shm, telemetry.sqlite3, markers,
// samples, sampler lock and events, logs, the plugin index).

let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-modes-')));
afterEach(() => box.cleanup());

const mode = (path: string) => (lstatSync(path).mode & 0o777).toString(8);

/** Runs the built cordon under `umask 022` (a shell sets it, as a login shell would). */
function cordon022(args: string[], env: NodeJS.ProcessEnv, input = '') {
  const quoted = [process.execPath, CORDON_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return runProcess(['sh', '-c', `umask 022; exec ${quoted}`], { env, input });
}

/** Every path under `dir` (not `dir` itself), depth first. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? [path, ...walk(path)] : [path];
  });
}

describe('file modes under umask 022', () => {
  it('wrap, reduce and pcodx create only owner-only files and directories', async () => {
    // Fresh locations cordon must create itself; the data dir holds only the plugin links.
    chmodSync(box.dataDir, 0o755);
    linkPlugins(box.dataDir, ['aider', 'codex']);
    const cache = join(box.root, 'fresh-cache');
    const xdg = join(box.root, 'fresh-xdg');
    const env: NodeJS.ProcessEnv = { ...box.env, CORDON_CACHE_DIR: cache, XDG_DATA_HOME: xdg, CORDON_LOG_LEVEL: 'debug', CORDON_INTERVAL: '50' };
    delete env.PCODX_DB;

    const runDir = join(box.dataDir, 'runs', 'modes');
    // The wrapped command lasts until the sampler has written a sample (the file is then non-empty),
    // however long a loaded machine takes; it gives up after 60 s and the mode check below says so.
    // (wrap hands its command the session directory as CORDON_WRAP_DIR.)
    const untilSampled = 'i=0; while [ ! -s "$CORDON_WRAP_DIR/samples.jsonl" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done';
    const wrapped = await cordon022(['wrap', '--shell-shim', '--session', 'modes', '--', 'sh', '-c', untilSampled], env);
    expect(wrapped.exitCode, wrapped.stderr).toBe(0);
    // The sampler writes its stop event after wrap returns.
    const events = join(runDir, 'sampler.jsonl');
    await waitFor(() => existsSync(events) && readFileSync(events, 'utf8').includes('"stop"'), { what: `the sampler's stop event in ${events}`, timeoutMs: 60_000 });
    const reduced = await cordon022(['reduce', '--session', 'modes', '--json'], env);
    expect(reduced.exitCode, reduced.stderr).toBe(0);

    // pcodx at its default location, held open so its -wal and -shm exist while we look.
    const ledgerPath = join(xdg, 'pcodx', 'pcodx.sqlite3');
    const child = spawn('sh', ['-c', `umask 022; exec '${process.execPath}' '${CORDON_BIN}' pcodx interactive --session modes`], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    child.stdin.write('a secret conversation\n');
    await waitFor(() => out.includes('<aboveturn id="msg1"/>'), { what: () => `pcodx's first turn marker in its output: ${JSON.stringify(out)}`, timeoutMs: 60_000 });
    const companions = [`${ledgerPath}-wal`, `${ledgerPath}-shm`];
    for (const f of companions) expect(existsSync(f), f).toBe(true);
    const whileOpen = Object.fromEntries(companions.map((f) => [f, mode(f)]));
    child.stdin.end('/exit\n');
    await new Promise((r) => child.on('close', r));

    expect(whileOpen).toEqual(Object.fromEntries(companions.map((f) => [f, '600'])));
    const files = [
      ledgerPath,
      join(box.dataDir, 'telemetry.sqlite3'),
      join(runDir, 'markers.jsonl'),
      join(runDir, 'samples.jsonl'),
      join(runDir, 'sampler.jsonl'),
      join(runDir, 'sampler.lock.1'),
      join(runDir, 'wrap.json'),
      join(runDir, 'STOP'),
      join(box.dataDir, 'logs', 'cordon.log'),
      join(cache, 'plugin-index.json'),
    ];
    const dirs = [join(box.dataDir, 'runs'), runDir, join(box.dataDir, 'logs'), cache, xdg, join(xdg, 'pcodx')];
    const found = Object.fromEntries([...files, ...dirs].map((p) => [p, existsSync(p) ? mode(p) : 'missing']));
    expect(found).toEqual(Object.fromEntries([...files.map((f) => [f, '600']), ...dirs.map((d) => [d, '700'])]));
    // And nothing else cordon wrote under them is wider.
    for (const root of [join(box.dataDir, 'runs'), join(box.dataDir, 'logs'), cache, xdg]) {
      for (const p of walk(root)) expect([p, mode(p)]).toEqual([p, statSync(p).isDirectory() || p.endsWith('/cordon-shell') ? '700' : '600']);
    }
    for (const p of readdirSync(box.dataDir).filter((n) => n.startsWith('telemetry.sqlite3'))) expect([p, mode(join(box.dataDir, p))]).toEqual([p, '600']);
  }, 120_000);

  it('a ledger or telemetry database an older cordon left 0644 becomes 0600 when opened; one that is not a database is left alone', async () => {
    const dir = join(box.root, 'old');
    mkdirSync(dir);
    const ledgerPath = join(dir, 'pcodx.sqlite3');
    const telemetryPath = join(dir, 'telemetry.sqlite3');
    (await Ledger.open({ path: ledgerPath })).close();
    await (await openTelemetryDb(telemetryPath)).close();
    for (const p of [ledgerPath, telemetryPath]) {
      // A reader left -wal/-shm behind as an older cordon would have, world-readable.
      const raw = new Database(p);
      raw.pragma('wal_checkpoint');
      chmodSync(p, 0o644);
      raw.close();
    }
    await (await Ledger.open({ path: ledgerPath })).close();
    await (await openTelemetryDb(telemetryPath)).close();
    expect([mode(ledgerPath), mode(telemetryPath)]).toEqual(['600', '600']);

    const notDb = join(dir, 'notes.txt');
    writeFileSync(notDb, 'not sqlite at all, 16+ bytes long');
    chmodSync(notDb, 0o644);
    await expect(Ledger.open({ path: notDb })).rejects.toMatchObject({ code: 'CORDON_DB_ERROR' });
    expect(mode(notDb)).toBe('644');
  });

  it('ensurePrivateFile creates 0600 under umask 022 exclusively, tightens an own 0644 file, never follows or changes a link', () => {
    const dir = join(box.root, 'unit');
    mkdirSync(dir);
    const previous = process.umask(0o022);
    try {
      const fresh = ensurePrivateFile(join(dir, 'fresh'));
      expect(mode(fresh)).toBe('600');
      const wide = join(dir, 'wide');
      writeFileSync(wide, 'x', { mode: 0o644 });
      ensurePrivateFile(wide);
      expect(mode(wide)).toBe('600');
      const target = join(dir, 'target');
      writeFileSync(target, 'keep', { mode: 0o644 });
      symlinkSync(target, join(dir, 'link'));
      ensurePrivateFile(join(dir, 'link'));
      tightenPrivateFile(join(dir, 'link'));
      expect([mode(target), readFileSync(target, 'utf8'), lstatSync(join(dir, 'link')).isSymbolicLink()]).toEqual(['644', 'keep', true]);
      symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
      ensurePrivateFile(join(dir, 'dangling'));
      expect(existsSync(join(dir, 'nowhere'))).toBe(false);
    } finally {
      process.umask(previous);
    }
  });
});
