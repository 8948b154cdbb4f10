import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPluginRoots, makeSandbox, runProcess, type RunResult, type Sandbox } from '../../../../test/support/cli.js';
import { REPO } from '../hot/support.js';

// `cordon control run -- CMD` may stand before every shell call an agent makes, so its fast route
// loads nothing beyond what `node -e 0` loads but a short list: its code cache (vm), the memory
// total (os), and libuv's terminal, process and signal handles, asked of Node's bindings. Not
// node:child_process with the socket and stream modules it brings (`src/process/direct-spawn.ts`),
// not node:tty (which loads net), not process.stdin's stream modules, not perf_hooks, not
// process.stderr's writer: each cost the fast route 0.7-3 ms (docs/ARCHITECTURE.md "Where the
// time goes").

const ALLOWED = new Set([
  'NativeModule vm',
  'NativeModule os',
  'Internal Binding os',
  'Internal Binding tty_wrap',
  'Internal Binding process_wrap',
  'Internal Binding signal_wrap',
  'NativeModule timers/promises',
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
  it('beyond `node -e 0`: vm, os and the terminal, process and signal handles; no child_process, net or stream', async () => {
    const control = (env: NodeJS.ProcessEnv) => withNullStdin([process.execPath, CORDON_BIN, 'control', 'run', '--', 'true'], env);
    // The first run writes the plugin index and the code caches, as a user's first call does.
    expect((await control(sandbox.env)).exitCode).toBe(0);
    const reference = new Set(await loaded((env) => withNullStdin([process.execPath, '-e', '0'], env)));
    const modules = await loaded(control);
    const extra = modules.filter((m) => !reference.has(m));
    expect(extra.filter((m) => !ALLOWED.has(m))).toEqual([]);
    // The command did start through the process handle (what the list above allows).
    expect(extra).toContain('Internal Binding process_wrap');
    // The same run recorded the command, so the route that was measured is the one that ran it.
    const records = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8').trim().split('\n');
    expect(records).toHaveLength(2);
    expect(JSON.parse(records[1]!)).toMatchObject({ argv: ['true'], exit_code: 0 });
  });
});
