import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { call } from './helpers.js';

// A telemetry store the user names (`--db`, `CORDON_DB`; db/target.ts `storeTarget`) never makes
// a directory, and the commands that read it (`analyze`, `export`) never make the file: a
// mistyped path is exit 2 naming the flag and the path, with nothing created. Only the default
// `<data>/telemetry.sqlite3` is made on first use.

let box: Sandbox;
let out: string;
beforeEach(() => {
  box = makeSandbox('cordon-named-store-');
  out = box.dir('out');
  call(box.dataDir, 'named', 'k1', 1_800_000_000_100, 1_800_000_000_900);
});
afterEach(() => box.cleanup());

describe('a telemetry store the user names', () => {
  it('reduce, on its fast route and through oclif, makes no missing directory', async () => {
    const db = join(out, 'missing', 'deeper', 't.sqlite3');
    for (const env of [box.env, { ...box.env, CORDON_NO_FAST_ROUTE: '1' }]) {
      const r = await runCordon(['reduce', '--db', db], { env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`Error: --db ${db}: its directory ${join(out, 'missing', 'deeper')}: no such directory; nothing was created`);
      expect(r.stderr).toContain('Code: CORDON_BAD_INPUT');
      const json = await runCordon(['reduce', '--db', db, '--json'], { env });
      expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', details: { flag: '--db', path: db } });
    }
    const fromEnv = await runCordon(['reduce'], { env: { ...box.env, CORDON_DB: db } });
    expect(fromEnv.exitCode).toBe(2);
    expect(fromEnv.stderr).toContain(`Error: CORDON_DB=${db}: its directory`);
    expect(readdirSync(out)).toEqual([]);
    expect(existsSync(join(box.dataDir, 'telemetry.sqlite3'))).toBe(false);
  });

  it('reduce refuses a store in a missing directory before it looks for sessions (none recorded yet)', async () => {
    const db = join(out, 'missing', 'y.sqlite3');
    const empty = { ...box.env, CORDON_DATA_DIR: box.dir('empty-data') };
    for (const env of [empty, { ...empty, CORDON_NO_FAST_ROUTE: '1' }]) {
      const r = await runCordon(['reduce', '--db', db], { env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toBe(`    Error: --db ${db}: its directory ${join(out, 'missing')}: no such directory; nothing was created\n    Code: CORDON_BAD_INPUT\n`);
      const json = await runCordon(['reduce', '--db', db, '--json'], { env });
      expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', details: { flag: '--db', path: db } });
    }
    // With a store that can be made, the missing sessions are what is said.
    const r = await runCordon(['reduce', '--db', join(out, 'y.sqlite3')], { env: empty });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no recorded sessions');
    expect(readdirSync(out)).toEqual([]);
  });

  it('a URL of a scheme other than postgres is refused as such by every command, --db and CORDON_DB, creating nothing', async () => {
    linkPlugins(box.dataDir, ['otlp']);
    const url = 'mysql://x';
    const commands = [['reduce'], ['analyze'], ['export', '--otlp', 'http://127.0.0.1:9/']];
    for (const env of [box.env, { ...box.env, CORDON_NO_FAST_ROUTE: '1' }]) {
      for (const args of commands) {
        const r = await runCordon([...args, '--db', url], { env, cwd: out });
        expect([args[0], r.exitCode, r.stderr]).toEqual([args[0], 2, `    Error: --db ${url}: unsupported scheme mysql; give a SQLite file path or a postgres:// URL\n    Code: CORDON_BAD_INPUT\n`]);
        const fromEnv = await runCordon(args, { env: { ...env, CORDON_DB: url }, cwd: out });
        expect([args[0], fromEnv.exitCode, fromEnv.stderr.split('\n')[0]]).toEqual([args[0], 2, `    Error: CORDON_DB=${url}: unsupported scheme mysql; give a SQLite file path or a postgres:// URL`]);
      }
    }
    // The credentials of such a URL are not printed; --json names flag and scheme.
    const json = await runCordon(['reduce', '--db', 'MySQL://root:hunter2@db/x', '--json'], { env: box.env, cwd: out });
    expect(json.exitCode).toBe(2);
    expect(json.stdout).not.toContain('hunter2');
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', details: { flag: '--db', scheme: 'mysql' } });
    expect(readdirSync(out)).toEqual([]);
    expect(existsSync(join(box.dataDir, 'telemetry.sqlite3'))).toBe(false);
  });

  it('reduce creates the file in a directory that exists', async () => {
    const db = join(out, 't.sqlite3');
    const r = await runCordon(['reduce', '--db', db], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(db)).toBe(true);
  });

  it('analyze and export read it: a missing file is refused and not created, then read once reduce made it', async () => {
    const db = join(out, 't.sqlite3');
    linkPlugins(box.dataDir, ['otlp']);
    for (const args of [['analyze', '--db', db], ['export', '--otlp', 'http://127.0.0.1:9/', '--db', db]]) {
      const r = await runCordon(args, { env: box.env });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(`Error: --db ${db}: no such database (\`cordon reduce --db ${db}\` makes one); nothing was created`);
    }
    expect(readdirSync(out)).toEqual([]);
    expect(existsSync(join(box.dataDir, 'telemetry.sqlite3'))).toBe(false);
    expect((await runCordon(['reduce', '--db', db], { env: box.env })).exitCode).toBe(0);
    const analyzed = await runCordon(['analyze', '--db', db, '--json'], { env: box.env });
    expect(analyzed.exitCode, analyzed.stderr).toBe(0);
    expect(JSON.parse(analyzed.stdout).db).toBe(db);
  });

  it('a directory named as the store is refused by every command, as --db and as CORDON_DB, before anything opens it', async () => {
    linkPlugins(box.dataDir, ['otlp']);
    const dir = box.dir('a.sqlite3');
    for (const [args, env] of [
      [['reduce', '--db', dir], box.env],
      [['reduce', '--db', dir], { ...box.env, CORDON_NO_FAST_ROUTE: '1' }],
      [['analyze', '--db', dir], box.env],
      [['export', '--otlp', 'http://127.0.0.1:9/', '--db', dir], box.env],
    ] as const) {
      const r = await runCordon([...args], { env });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`Error: --db ${dir}: is a directory, not an SQLite file; nothing was created`);
      expect(r.stderr).toContain('Code: CORDON_BAD_INPUT');
    }
    const fromEnv = await runCordon(['reduce', '--json'], { env: { ...box.env, CORDON_DB: dir } });
    expect(fromEnv.exitCode).toBe(2);
    expect(JSON.parse(fromEnv.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', details: { flag: 'CORDON_DB', path: dir } });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the default store is still made on first use', async () => {
    const r = await runCordon(['analyze', '--json'], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(join(box.dataDir, 'telemetry.sqlite3'))).toBe(true);
  });

  // Found by a fresh user: `cordon reduce --db postgres://cordon@db/fleet` said `getaddrinfo ENOTFOUND db`.
  it('a PostgreSQL server that cannot be reached is said in words, naming the URL', async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    await new Promise((done) => server.close(done));
    call(box.dataDir, 's', 'k', 1_700_000_000_000, 1_700_000_000_010);
    const refused = await runCordon(['reduce', '--all', '--db', `postgres://cordon@127.0.0.1:${port}/fleet`], { env: box.env });
    expect([refused.exitCode, refused.stderr.replace(/\s+/g, ' ').trim()]).toEqual([2, `Error: cannot open telemetry database postgres://***@127.0.0.1:${port}/fleet: connection refused (nothing listens there) Code: CORDON_DB_ERROR`]);
  }, 60_000);
});
