import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPluginRoots, makeSandbox, runProcess, type RunResult, type Sandbox } from '../../../../test/support/cli.js';
import { REPO } from '../hot/support.js';

// `cordon control run -- CMD` may stand before every shell call an agent makes, so its fast route
// loads nothing a Node process that runs the command would not load, beyond a short list: its code
// cache (vm), the terminal test (tty), the memory total (os), the forwarded signals' handles and
// what the cgroup plugin imports (timers/promises). Not process.stdin's stream modules, not
// perf_hooks, not process.stderr's writer: each cost the fast route 0.7-2 ms
// (docs/ARCHITECTURE.md "Where the time goes").

const ALLOWED = new Set([
  'NativeModule vm',
  'NativeModule tty',
  'NativeModule internal/tty',
  'NativeModule os',
  'Internal Binding os',
  'NativeModule timers/promises',
  'Internal Binding signal_wrap',
]);

let sandbox: Sandbox;

beforeEach(() => {
  sandbox = makeSandbox();
  linkPluginRoots(sandbox.dataDir, [{ name: '@cordon/cgroup-linux', root: join(REPO, 'plugins/cgroup-linux') }]);
});

afterEach(() => sandbox.cleanup());

/** The modules a run loaded (process.moduleLoadList, written at exit by a preloaded probe). */
async function loaded(run: (env: NodeJS.ProcessEnv) => Promise<RunResult>): Promise<string[]> {
  const dir = sandbox.dir('module-probe');
  const out = join(dir, `modules-${Math.random().toString(36).slice(2)}.txt`);
  const probe = join(dir, 'probe.cjs');
  writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
  const r = await run({ ...sandbox.env, NODE_OPTIONS: `--require ${probe}` });
  expect(r.exitCode, r.stderr).toBe(0);
  return readFileSync(out, 'utf8').split('\n');
}

/** Runs argv with stdin on /dev/null (a tool call given no input): process.stdin would be a file stream there. */
const withNullStdin = (argv: readonly string[], env: NodeJS.ProcessEnv): Promise<RunResult> => runProcess(['/bin/sh', '-c', 'exec "$@" </dev/null', 'sh', ...argv], { env });

describe('cordon control run fast route: what it loads', () => {
  it('beyond a Node process that only spawns the command: vm, tty, os, the signal handles and timers/promises', async () => {
    const control = (env: NodeJS.ProcessEnv) => withNullStdin([process.execPath, CORDON_BIN, 'control', 'run', '--', 'true'], env);
    // The first run writes the plugin index and the code caches, as a user's first call does.
    expect((await control(sandbox.env)).exitCode).toBe(0);
    const reference = new Set(await loaded((env) => withNullStdin([process.execPath, '-e', "require('node:child_process').spawn('true', { stdio: 'inherit' })"], env)));
    const modules = await loaded(control);
    const extra = modules.filter((m) => !reference.has(m));
    expect(extra.filter((m) => !ALLOWED.has(m))).toEqual([]);
    // The same run recorded the command, so the route that was measured is the one that ran it.
    const records = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8').trim().split('\n');
    expect(records).toHaveLength(2);
    expect(JSON.parse(records[1]!)).toMatchObject({ argv: ['true'], exit_code: 0 });
  });
});
