import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { MAX_COMMAND_CHARS, MAX_RECORDED_ARGV_CHARS, recordedArgv } from '../../src/output/recorded-command.js';

// A hostile-input probe: `cordon control run -- CMD ARGS` wrote its argv whole, twice in
// runs.jsonl (`argv`, `command`) and once in cordon.log: one call with a 130 KB argument of
// control characters (each JSON-escaped to six bytes) added 1.6 MB to runs.jsonl and 0.8 MB to the
// log. Both routes now cut the shown command as markers cut theirs (2,000 characters, after
// redaction); the command itself still gets every byte.

let sandbox: Sandbox;
beforeEach(() => (sandbox = makeSandbox('cordon-control-cut-')));
afterEach(() => sandbox.cleanup());

const routes = [
  { name: 'fast route', env: {} },
  { name: 'oclif route', env: { CORDON_NO_FAST_ROUTE: '1' } },
];

const unguardedLines = (log: string): Array<Record<string, unknown>> =>
  log
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.message === 'control run: unguarded (no enforce backend answered)');

describe.each(routes)('control run records a long command cut ($name)', ({ env }) => {
  it('a 130 KB argument: the command gets all of it; the record, --json and the log keep 2,000 characters, a secret at the cut as ***', async () => {
    const out = join(sandbox.root, 'length.txt');
    const huge = '\u0001'.repeat(130_000);
    // Cut before redaction, the cut would fall inside the secret and keep `hun`.
    const secretAtCut = `${'x'.repeat(1990)} TOKEN=hunter2secretvalue and more`;
    const argv = ['sh', '-c', 'printf %s "$1" | wc -c > "$0"', out, huge, secretAtCut];
    const r = await runCordon(['control', 'run', '--json', '--', ...argv], { cwd: sandbox.root, env: { ...sandbox.env, CORDON_LOG_LEVEL: 'debug', ...env } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8').trim()).toBe('130000');

    const runs = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8');
    const log = readFileSync(join(sandbox.dataDir, 'logs/cordon.log'), 'utf8');
    const record = JSON.parse(runs.trim().split('\n').at(-1)!) as { argv: string[]; command: string; argv_omitted?: number };
    const shown = ['sh', '-c', 'printf %s "$1" | wc -c > "$0"', out, '\u0001'.repeat(MAX_COMMAND_CHARS), `${'x'.repeat(1990)} TOKEN=***`];
    expect(record.argv).toEqual(shown);
    expect(record.argv_omitted).toBeUndefined();
    expect(record.command).toHaveLength(MAX_COMMAND_CHARS);
    expect(record.command.startsWith('sh -c printf %s "$1" | wc -c > "$0" ')).toBe(true);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual(record);
    expect(unguardedLines(log).at(-1)).toMatchObject({ argv: shown });
    for (const text of [runs, log, r.stdout, r.stderr]) expect(text).not.toContain('hunter2');
    // Each file grows by one bounded line: the argv's 4,000 kept control characters JSON-escaped, not 130,000.
    expect(Buffer.byteLength(runs)).toBeLessThan(40_000);
    expect(Buffer.byteLength(log)).toBeLessThan(20_000);
  });

  it('100,000 arguments reach the command on both routes (oclif reads only what is before --; it read every token per token, 20,000 took 10 s)', async () => {
    const args = Array.from({ length: 100_000 }, (_, i) => String(i % 10));
    const r = await runCordon(['control', 'run', '--', 'sh', '-c', 'echo "$# $1 ${100000}"', 'sh', ...args], { cwd: sandbox.root, env: { ...sandbox.env, ...env }, timeoutMs: 60_000 });
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '100000 0 9\n', '']);
  }, 90_000);

  it('many arguments: the record keeps them up to 8,000 characters together and counts the ones left out', async () => {
    const args = Array.from({ length: 4_000 }, (_, i) => `a${i}`);
    const r = await runCordon(['control', 'run', '--', 'true', ...args], { cwd: sandbox.root, env: { ...sandbox.env, ...env } });
    expect(r.exitCode, r.stderr).toBe(0);
    const runs = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8');
    const record = JSON.parse(runs.trim().split('\n').at(-1)!) as { argv: string[]; command: string; argv_omitted?: number };
    expect(record.argv.slice(0, 3)).toEqual(['true', 'a0', 'a1']);
    expect(record.argv.join(' ').length).toBeLessThanOrEqual(MAX_RECORDED_ARGV_CHARS);
    expect(record.argv.length + record.argv_omitted!).toBe(4_001);
    expect(record.command).toBe(['true', ...args].join(' ').slice(0, MAX_COMMAND_CHARS));
    const logged = unguardedLines(readFileSync(join(sandbox.dataDir, 'logs/cordon.log'), 'utf8')).at(-1)!;
    expect(logged).toMatchObject({ argv: record.argv, argv_omitted: record.argv_omitted });
  });

  it('a 100 KB hint: --hint is refused in a bounded line; from AGENT_RESOURCE_HINT the record keeps 2,000 characters redacted, the log a few of its unknown tokens', async () => {
    const hint = `memory:low ${'junk '.repeat(20_000)}TOKEN=hunter2secretvalue`;
    // Given as --hint it is refused (exit 2), named in a bounded line, with nothing run.
    const refused = await runCordon(['control', 'run', '--json', '--hint', `TOKEN=hunter2secretvalue ${hint}`, '--', 'true'], { cwd: sandbox.root, env: { ...sandbox.env, ...env } });
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout.length + refused.stderr.length).toBeLessThan(3_000);
    expect(refused.stdout + refused.stderr).toContain('TOKEN=*** junk junk junk junk and 19997 more; use memory:low');
    expect(refused.stdout + refused.stderr).not.toContain('hunter2');
    // From AGENT_RESOURCE_HINT, unknown tokens are skipped and the run goes on.
    for (const how of [{ args: [], env: { AGENT_RESOURCE_HINT: hint } }]) {
      const r = await runCordon(['control', 'run', ...how.args, '--', 'true'], { cwd: sandbox.root, env: { ...sandbox.env, ...env, ...how.env } });
      expect(r.exitCode, r.stderr).toBe(0);
      const runs = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8');
      const record = JSON.parse(runs.trim().split('\n').at(-1)!) as { hint: string; tier: string };
      expect(record.tier).toBe('low');
      expect(record.hint).toHaveLength(MAX_COMMAND_CHARS);
      expect(record.hint.startsWith('memory:low junk junk ')).toBe(true);
      const log = readFileSync(join(sandbox.dataDir, 'logs/cordon.log'), 'utf8');
      const skipped = log.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.message === 'control run: hint tokens not understood were skipped').at(-1)!;
      expect(skipped).toMatchObject({ unknown_count: 20_001 });
      expect((skipped.unknown as string[]).length).toBe(20);
      expect(Buffer.byteLength(log)).toBeLessThan(20_000);
    }
    // The secret is past the cut here; where a cut falls on one, it is *** already (first test).
    const short = await runCordon(['control', 'run', '--', 'true'], { cwd: sandbox.root, env: { ...sandbox.env, ...env, AGENT_RESOURCE_HINT: 'memory:low TOKEN=hunter2secretvalue' } });
    expect(short.exitCode, short.stderr).toBe(0);
    const runs = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8');
    expect(JSON.parse(runs.trim().split('\n').at(-1)!)).toMatchObject({ hint: 'memory:low TOKEN=***' });
    expect(runs + readFileSync(join(sandbox.dataDir, 'logs/cordon.log'), 'utf8')).not.toContain('hunter2');
  });
});

describe('recordedArgv', () => {
  it('bounds empty arguments too, and never splits a character at the budget', () => {
    const empty = recordedArgv(Array.from({ length: 100_000 }, () => ''));
    expect(empty.argv.length).toBe(MAX_RECORDED_ARGV_CHARS);
    expect(empty.omitted).toBe(100_000 - MAX_RECORDED_ARGV_CHARS);
    // 3 x 2,000 + 3 separators leave 1,997: a last argument of emoji is cut on a code point boundary.
    const emoji = recordedArgv(['a'.repeat(5000), 'b'.repeat(5000), 'c'.repeat(5000), '\u{1F600}'.repeat(2000), 'next']);
    expect(emoji.argv.slice(0, 3).map((a) => a.length)).toEqual([2000, 2000, 2000]);
    expect(emoji.argv[3]).toBe('\u{1F600}'.repeat(998));
    expect(emoji.omitted).toBe(1);
  });
});
