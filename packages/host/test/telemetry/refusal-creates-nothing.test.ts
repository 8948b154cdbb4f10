import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { call } from './reduce/helpers.js';

// A telemetry command that has nothing to read refuses without creating anything in the data
// directory: `CORDON_DATA_DIR=$(mktemp -d) cordon analyze` left an empty 40 KB telemetry.sqlite3.

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox('cordon-refusal-creates-nothing-');
  // The otlp plugin's link is the data directory's one file; export needs it.
  linkPlugins(box.dataDir, ['otlp']);
});
afterEach(() => box.cleanup());

/** Every path under `dir` (relative), directories included. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      out.push(relative(dir, path));
      if (statSync(path).isDirectory()) walk(path);
    }
  };
  walk(dir);
  return out.sort();
}

describe('telemetry commands with nothing recorded', () => {
  it('analyze, export and reduce refuse and leave the data directory as it was', async () => {
    const before = tree(box.dataDir);
    expect(before).toEqual(['package.json']);
    const refusals: Array<[readonly string[], string]> = [
      [['analyze'], 'no recorded sessions under'],
      [['analyze', '--all', '--format', 'html'], 'no recorded sessions under'],
      [['analyze', '--json'], 'no recorded sessions under'],
      [['analyze', '--session', 'nope'], '--session "nope": no recorded session of that id'],
      [['analyze', '--agent', 'codex'], 'no recorded session matches --agent codex'],
      [['analyze', '--compare', 'agent:codex', 'all'], 'no recorded session matches --compare agent:codex'],
      [['export', '--otlp', 'http://127.0.0.1:9'], `no sessions stored in ${join(box.dataDir, 'telemetry.sqlite3')}`],
      [['export', '--otlp', 'http://127.0.0.1:9', '--session', 'nope'], '--session "nope": no recorded session of that id'],
      [['reduce'], 'no recorded sessions under'],
      [['reduce', '--all', '--json'], 'no recorded sessions under'],
    ];
    for (const [args, said] of refusals) {
      const r = await runCordon(args, { env: box.env });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(`${r.stdout}${r.stderr}`.replace(/\s+/g, ' '), args.join(' ')).toContain(said);
      expect(tree(box.dataDir), args.join(' ')).toEqual(before);
    }
    // A --since export of a quiet period is no refusal (exit 0, nothing sent), and creates nothing either.
    const quiet = await runCordon(['export', '--otlp', 'http://127.0.0.1:9', '--since', '2026-01-01'], { env: box.env });
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain('exported 0 session(s)');
    expect(tree(box.dataDir)).toEqual(before);
  }, 120_000);

  it('a recorded session is still reduced into a new store by analyze', async () => {
    call(box.dataDir, 's1', 'k1', 1_800_000_000_000, 1_800_000_000_500, { command: 'ls' });
    const r = await runCordon(['analyze', '--json'], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(tree(box.dataDir)).toContain('telemetry.sqlite3');
    // A session not recorded is still refused once the store exists, as before.
    const unknown = await runCordon(['analyze', '--session', 'nope'], { env: box.env });
    expect(unknown.exitCode).toBe(2);
  }, 120_000);
});
