import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';

// The fast `check` and `control run` end through process.exit() once their last byte is written
// and nothing is left in the event loop (bin/run.cjs exitIfIdle), which skips Node's teardown.
// What a plugin left running must still finish: work it did not await, and a 'beforeExit'
// listener of its own.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-exit-idle-');
});
afterEach(() => sandbox.cleanup());

/**
 * Links a plugin that taps `hook` (`audit` or `enforce`) and, inside the tap, starts `work`
 * (JavaScript that writes the file `out` later) without awaiting it.
 */
function pluginLeavingWork(hook: 'audit' | 'enforce', work: string): string {
  const root = sandbox.dir(`plugin-${hook}-late`);
  const out = join(sandbox.root, `${hook}-late.txt`);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: `${hook}-late`, version: '0.0.0', oclif: { hooks: { 'cordon:register': { target: './register.cjs', identifier: 'register' } } } }));
  writeFileSync(
    join(root, 'register.cjs'),
    [
      "const { writeFileSync } = require('node:fs');",
      `const out = ${JSON.stringify(out)};`,
      `exports.register = async () => ({ name: '${hook}-late', apply(api) { api.hooks.${hook}.tapPromise('late', async () => { ${work}; return undefined; }); } });`,
      '',
    ].join('\n'),
  );
  linkPluginRoots(sandbox.dataDir, [{ name: `${hook}-late`, root }]);
  return out;
}

describe('fast routes end at once only when nothing is left to do', () => {
  async function check(): ReturnType<typeof runCordon> {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/app.py': 'x\n' }, sandbox.env);
    expect((await runCordon(['arm', 'late', '--allow', 'src/**'], { env: sandbox.env, cwd: repo })).exitCode).toBe(0);
    writeFiles(repo, { 'src/app.py': 'y\n' });
    return runCordon(['check'], { env: sandbox.env, cwd: repo });
  }

  it('check: a timer an audit tap started and did not await still fires before the process ends', async () => {
    const out = pluginLeavingWork('audit', "setTimeout(() => writeFileSync(out, 'timer'), 300)");
    const run = await check();
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^accepted/);
    expect(existsSync(out) ? readFileSync(out, 'utf8') : 'never written').toBe('timer');
  });

  it("check: a plugin's own 'beforeExit' listener still hears the event", async () => {
    const out = pluginLeavingWork('audit', "process.once('beforeExit', () => writeFileSync(out, 'beforeExit'))");
    expect((await check()).exitCode).toBe(0);
    expect(existsSync(out) ? readFileSync(out, 'utf8') : 'never written').toBe('beforeExit');
  });

  it("control run: a timer an enforce tap started and did not await still fires; the exit status is the command's", async () => {
    const out = pluginLeavingWork('enforce', "setTimeout(() => writeFileSync(out, 'timer'), 300)");
    const run = await runCordon(['control', 'run', '--', 'sh', '-c', 'exit 7'], { env: sandbox.env, cwd: sandbox.root });
    expect(run.exitCode).toBe(7);
    expect(existsSync(out) ? readFileSync(out, 'utf8') : 'never written').toBe('timer');
  });

  it("control run: a plugin's own 'beforeExit' listener still hears the event", async () => {
    const out = pluginLeavingWork('enforce', "process.once('beforeExit', () => writeFileSync(out, 'beforeExit'))");
    expect((await runCordon(['control', 'run', '--', 'true'], { env: sandbox.env, cwd: sandbox.root })).exitCode).toBe(0);
    expect(existsSync(out) ? readFileSync(out, 'utf8') : 'never written').toBe('beforeExit');
  });
});
