import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo } from '../../../../test/support/git.js';
import { directorySpelling } from '../../src/envelope/state/state-dir-target.js';

// A file path the user names for cordon to write, spelled as a directory (`l.db/`, `.`, `x/..`).
// Before, `cordon pcodx init --db l.db/` made and used `l.db` (Node's path.resolve drops the
// separator), `reduce --db t.sqlite3/` failed with Node's `EISDIR: illegal operation on a
// directory`, and `check --out r.json/` with the same words. Now each is refused before anything
// runs: exit 2, the flag or variable and the path named, nothing created.

let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-dir-spelling-')));
afterEach(() => box.cleanup());

const flat = (s: string) => s.replace(/\s+/g, ' ');

describe('a file path spelled as a directory', () => {
  it('directorySpelling: a final separator, `.` and `..`; not `-`, URLs or plain names; `\\` only on Windows', () => {
    for (const path of ['l.db/', '/tmp/x/', '.', '..', 'a/.', 'a/..', './']) expect([path, directorySpelling(path, 'linux')]).toEqual([path, expect.any(String)]);
    for (const path of ['l.db', '-', '', 'postgres://host/', 'a/.b', '..x', '.db', 'a\\']) expect([path, directorySpelling(path, 'linux')]).toEqual([path, undefined]);
    expect(directorySpelling('C:\\data\\l.db\\', 'win32')).toMatch(/ends with "\\"/);
    expect(directorySpelling('C:\\data\\..', 'win32')).toMatch(/"\.\."/);
  });

  it('telemetry stores (--db, CORDON_DB) and reports (check --out, analyze --out): exit 2 naming the input, nothing made', async () => {
    const cwd = box.dir('work');
    const cases: Array<[string[], NodeJS.ProcessEnv, string]> = [
      [['reduce', '--db', join(cwd, 't.sqlite3/')], {}, `--db ${join(cwd, 't.sqlite3/')}: ends with "/", so it names a directory`],
      [['analyze', '--db', '.'], {}, '--db .: its last part "." names a directory'],
      [['reduce'], { CORDON_DB: 'x/..' }, 'CORDON_DB=x/..: its last part ".." names a directory'],
      [['analyze', '--out', 'r.html/'], {}, '--out r.html/: ends with "/", so it names a directory'],
    ];
    for (const [args, extra, shown] of cases) {
      const r = await runCordon(args, { env: { ...box.env, ...extra }, cwd });
      expect([args, r.exitCode], r.stderr).toEqual([args, 2]);
      expect(flat(r.stderr)).toContain(shown);
      expect(r.stderr).toContain('Code: CORDON_BAD_INPUT');
    }
    expect(readdirSync(cwd)).toEqual([]);
  }, 120_000);

  it('check --out: refused before the check runs', async () => {
    const repo = makeRepo(box.dir('repo'), { 'a.txt': 'a\n' }, box.env);
    expect((await runCordon(['arm', 'spelling', '--allow', 'a.txt'], { env: box.env, cwd: repo })).exitCode).toBe(0);
    writeFileSync(join(repo, 'a.txt'), 'b\n');
    const r = await runCordon(['check', '--format', 'sarif', '--out', 'r.sarif/'], { env: box.env, cwd: repo });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(flat(r.stderr)).toContain('--out r.sarif/: ends with "/", so it names a directory');
    expect([existsSync(join(repo, '.cordon', 'audit.json')), existsSync(join(repo, 'r.sarif'))]).toEqual([false, false]);
    // The same check with a file's path runs and leaves its verdict.
    expect((await runCordon(['check', '--format', 'sarif', '--out', 'r.sarif'], { env: box.env, cwd: repo })).exitCode).toBe(0);
    expect([existsSync(join(repo, '.cordon', 'audit.json')), existsSync(join(repo, 'r.sarif'))]).toEqual([true, true]);
  }, 120_000);

  it('the pcodx ledger (--db, PCODX_DB): refused, no ledger made', async () => {
    linkPlugins(box.dataDir, ['codex']);
    const cwd = box.dir('pcodx');
    for (const [args, extra, shown] of [
      [['pcodx', 'init', '--db', 'l.db/', '--session', 's'], {}, 'error: --db l.db/: ends with "/", so it names a directory'],
      [['pcodx', 'init', '--session', 's'], { PCODX_DB: 'l.db/' }, 'error: PCODX_DB=l.db/: ends with "/", so it names a directory'],
      [['pcodx', 'show', '--db', 'sub/..', '--session', 's'], {}, 'error: --db sub/..: its last part ".." names a directory'],
    ] as Array<[string[], NodeJS.ProcessEnv, string]>) {
      const r = await runCordon(args, { env: { ...box.env, ...extra }, cwd });
      expect([args, r.exitCode, flat(r.stderr)]).toEqual([args, 2, expect.stringContaining(shown)]);
    }
    expect(readdirSync(cwd)).toEqual([]);
  }, 120_000);
});
