import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type RunResult, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';
import { landingPath, stateDirOfTarget } from '../../src/envelope/state/state-dir-target.js';

// A file cordon writes at a path the user names (a report's --out, a telemetry store's --db or
// CORDON_DB) never lands in an envelope's .cordon/, where any file cordon did not write makes
// every envelope command refuse the directory: refused before anything runs, exit 2, naming the
// path, however the path reaches it (.., a linked directory, a link as the file).

const flat = (s: string) => s.replace(/\s+/g, ' ');

let box: Sandbox;
let repo: string;
beforeEach(async () => {
  box = makeSandbox('cordon-state-dir-target-');
  repo = realpathSync(makeRepo(box.dir('repo'), { 'src/a.txt': 'a\n' }, box.env));
  const armed = await runCordon(['arm', 'x', '--allow', 'src/**'], { env: box.env, cwd: repo });
  expect(armed.exitCode, armed.stderr).toBe(0);
  writeFiles(repo, { 'src/a.txt': 'b\n' });
});
afterEach(() => box.cleanup());

/** What `.cordon/` holds, to prove a refusal left it as it was. */
const stateFiles = () => Object.fromEntries(readdirSync(join(repo, '.cordon')).map((name) => [name, readFileSync(join(repo, '.cordon', name), 'utf8')]));

function expectRefused(r: RunResult, shown: string): void {
  expect(r.exitCode, r.stdout + r.stderr).toBe(2);
  expect(flat(r.stderr)).toContain(`${shown}: it is inside ${join(repo, '.cordon')}, the envelope's state directory`);
  expect(r.stderr).toContain('Code: CORDON_BAD_INPUT');
}

describe('a file the user names for cordon to write, inside an envelope\'s .cordon/', () => {
  it('check --out, analyze --out, reduce --db and CORDON_DB are refused before anything runs; check works after', async () => {
    const before = stateFiles();
    const outside = box.dir('outside');
    symlinkSync(repo, join(outside, 'to-repo'));
    symlinkSync('../.cordon/linked.sarif', join(repo, 'src/report.sarif'));
    const cases: Array<[readonly string[], string, NodeJS.ProcessEnv?]> = [
      [['check', '--format', 'sarif', '--out', '.cordon/x.sarif'], '--out .cordon/x.sarif'],
      [['check', '--format', 'junit', '--out', 'src/../.cordon/x.xml'], '--out src/../.cordon/x.xml'],
      [['check', '--format', 'sarif', '--out', join(outside, 'to-repo/.cordon/x.sarif')], `--out ${join(outside, 'to-repo/.cordon/x.sarif')}`],
      // A link as the file: the report would replace the link's target.
      [['check', '--format', 'sarif', '--out', 'src/report.sarif'], '--out src/report.sarif'],
      // The state directory itself.
      [['check', '--format', 'sarif', '--out', '.cordon'], '--out .cordon'],
      [['analyze', '--format', 'html', '--out', '.cordon/r.html'], '--out .cordon/r.html'],
      [['reduce', '--db', '.cordon/t.sqlite3'], '--db .cordon/t.sqlite3'],
      [['analyze', '--db', '.cordon/t.sqlite3'], '--db .cordon/t.sqlite3'],
      [['reduce'], `CORDON_DB=${join(repo, '.cordon/t.sqlite3')}`, { CORDON_DB: join(repo, '.cordon/t.sqlite3') }],
    ];
    for (const [args, shown, extra] of cases) {
      const r = await runCordon(args, { env: { ...box.env, ...extra }, cwd: repo });
      expectRefused(r, shown);
      expect(stateFiles(), args.join(' ')).toEqual(before);
    }
    // Nothing was audited meanwhile, and the envelope still works.
    expect(existsSync(join(repo, '.cordon/audit.json'))).toBe(false);
    const check = await runCordon(['check'], { env: box.env, cwd: repo });
    expect(check.exitCode, check.stderr).toBe(0);
    // A report beside .cordon/ is fine.
    const beside = await runCordon(['check', '--format', 'sarif', '--out', '.cordon.sarif'], { env: box.env, cwd: repo });
    expect(beside.exitCode, beside.stderr).toBe(0);
  }, 120_000);

  it('cordon reset of an envelope beside a stray file says what it left and how to arm again', async () => {
    writeFiles(repo, { '.cordon/x.sarif': 'a report\n' });
    const r = await runCordon(['reset'], { env: box.env, cwd: repo });
    expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(r.stdout).toBe(`reset: removed the envelope in ${repo}\nreset: left "x.sarif" in .cordon/: cordon did not write it; move it out before \`cordon arm\` (e.g. \`mv .cordon/x.sarif <another directory> && rmdir .cordon\`)\n`);
    expect(readdirSync(join(repo, '.cordon'))).toEqual(['x.sarif']);
    const json = await runCordon(['reset', '--json'], { env: box.env, cwd: repo });
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_STATE_FOREIGN', details: { strays: ['x.sarif'] } });
  }, 60_000);

  it('landingPath walks as the kernel does: a link\'s .. is its target\'s parent; stateDirOfTarget finds only a work-tree root\'s .cordon', () => {
    const outside = box.dir('walk');
    mkdirSync(join(outside, 'deep/er'), { recursive: true });
    symlinkSync(join(outside, 'deep/er'), join(repo, 'hop'));
    // Read as text, hop/../.cordon/x is the repository's .cordon; the kernel goes to deep/.cordon.
    expect(landingPath('hop/../.cordon/x', repo)).toBe(join(outside, 'deep/.cordon/x'));
    expect(stateDirOfTarget('hop/../.cordon/x', repo)).toBeUndefined();
    // Up from the link's target, back into the repository.
    expect(stateDirOfTarget('hop/../../../repo/.cordon/x', repo)).toBe(join(repo, '.cordon'));
    symlinkSync(join(repo, 'src'), join(outside, 'deep/er/src'));
    // Built as text: path.join would take the `..` away before the walk.
    expect(stateDirOfTarget(`${outside}/deep/er/src/../.cordon/new/y`)).toBe(join(repo, '.cordon'));
    // A .cordon that is no work tree's (no .git beside it, no state.json in it) is anyone's.
    mkdirSync(join(outside, '.cordon'));
    expect(stateDirOfTarget(join(outside, '.cordon/x'))).toBeUndefined();
  });
});
