import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORDON_BIN, REPO_ROOT, linkPluginRoots, makeSandbox, runCordon, runProcess, type Sandbox } from '../../support/cli.js';
import { tempDirForTest } from '../../support/temp.js';

// Issue 28, "Signals and processes": cordon ends like the command it ran, a signal sent to the
// process group reaches the command once, and the odd inputs (a deleted working directory, a
// second `--`, output without a final newline) behave the same on the fast route and through oclif.

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = makeSandbox('cordon-signals-');
  linkPluginRoots(sandbox.dataDir, [
    { name: '@cordon/cgroup-linux', root: join(REPO_ROOT, 'plugins/cgroup-linux') },
    { name: '@cordon/aider', root: join(REPO_ROOT, 'plugins/aider') },
  ]);
});
afterAll(() => sandbox.cleanup());

const NODE = process.execPath;
const routes = [
  ['fast route', {}],
  ['oclif', { CORDON_NO_FAST_ROUTE: '1' }],
] as const;

async function waitFor(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

describe('a Ctrl-C in a shell loop of cordon steps ends the loop', () => {
  const steps = [
    ['control run', (started: string) => `${NODE} ${CORDON_BIN} control run -- sh -c 'echo x >> ${started}; exec sleep 60'`],
    ['wrap', (started: string) => `${NODE} ${CORDON_BIN} wrap -- sh -c 'echo x >> ${started}; exec sleep 60'`],
  ] as const;
  for (const [name, step] of steps) {
    for (const [route, extra] of routes) {
      it(`${name} (${route}): cordon dies of SIGINT, so the shell stops its loop`, async () => {
        const dir = tempDirForTest(`loop-`);
        const started = join(dir, 'started');
        // The shell and everything under it in one process group of their own, as a terminal's
        // foreground job: Ctrl-C is SIGINT to that whole group.
        const loop = `for i in 1 2 3; do ${step(started)}; echo "step $i done"; done; echo "loop finished"`;
        const shell = spawn('bash', ['-c', loop], { env: { ...sandbox.env, ...extra }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        shell.stdout.on('data', (b: Buffer) => (out += b));
        await waitFor('the first step to start', () => lines(started).length === 1);
        process.kill(-shell.pid!, 'SIGINT');
        const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => shell.on('close', (c, s) => resolve([c, s])));
        expect(out).not.toContain('done');
        expect(out).not.toContain('loop finished');
        expect(lines(started)).toHaveLength(1);
        expect(signal ?? code).toBe(signal === null ? 130 : 'SIGINT');
      });
    }
  }

  it('dies of the same signal for SIGTERM and SIGHUP, and exits 128 + n for a core-dumping one', async () => {
    for (const [route, extra] of routes) {
      const term = await runCordon(['control', 'run', '--', 'sh', '-c', 'kill -TERM $$'], { env: { ...sandbox.env, ...extra } });
      expect([route, term.signal]).toEqual([route, 'SIGTERM']);
      const hup = await runCordon(['control', 'run', '--', 'sh', '-c', 'kill -HUP $$'], { env: { ...sandbox.env, ...extra } });
      expect([route, hup.signal]).toEqual([route, 'SIGHUP']);
      const quit = await runCordon(['control', 'run', '--', 'sh', '-c', 'kill -QUIT $$'], { env: { ...sandbox.env, ...extra } });
      expect([route, quit.exitCode, quit.signal]).toEqual([route, 131, null]);
    }
    const wrapped = await runCordon(['wrap', '--', 'sh', '-c', 'kill -TERM $$'], { env: sandbox.env });
    expect(wrapped.signal).toBe('SIGTERM');
  });
});

describe('signals reach the command once', () => {
  // A Node command counting the signals it gets; SIGUSR2 ends it once the signals sent before
  // it have had their turn (each signal reaches it, directly or forwarded, before the USR2
  // forwarded after them).
  const counter = (log: string) =>
    `const fs=require('fs');for(const s of ['SIGTERM','SIGINT','SIGHUP'])process.on(s,()=>fs.appendFileSync(${JSON.stringify(log)},s+'\\n'));` +
    `process.on('SIGUSR2',()=>setImmediate(()=>{fs.appendFileSync(${JSON.stringify(log)},'end\\n');process.exit(0)}));fs.appendFileSync(${JSON.stringify(log)},'ready\\n');setInterval(()=>{},1000)`;

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`control run: ${signal} sent to the process group is handled once`, async () => {
      const log = join(tempDirForTest('once-'), 'log');
      const cordon = spawn(NODE, [CORDON_BIN, 'control', 'run', '--', NODE, '-e', counter(log)], { env: sandbox.env, detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
      await waitFor('the command', () => lines(log).includes('ready'));
      process.kill(-cordon.pid!, signal);
      await waitFor(`the ${signal}`, () => lines(log).includes(signal));
      cordon.kill('SIGUSR2');
      await new Promise((resolve) => cordon.on('close', resolve));
      expect(lines(log).filter((l) => l === signal)).toHaveLength(1);
      expect(lines(log).at(-1)).toBe('end');
    });
  }

  it('wrap: a SIGINT sent to it without a terminal reaches the agent, once', async () => {
    const log = join(tempDirForTest('wrap-int-'), 'log');
    const wrap = spawn(NODE, [CORDON_BIN, 'wrap', '--', NODE, '-e', counter(log)], { env: sandbox.env, detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
    await waitFor('the agent', () => lines(log).includes('ready'));
    wrap.kill('SIGINT');
    await waitFor('the SIGINT', () => lines(log).includes('SIGINT'));
    process.kill(-wrap.pid!, 'SIGINT');
    await waitFor('the second SIGINT', () => lines(log).filter((l) => l === 'SIGINT').length >= 2);
    process.kill(wrap.pid!, 'SIGTERM');
    await waitFor('the SIGTERM', () => lines(log).includes('SIGTERM'));
    process.kill(wrap.pid!, 'SIGHUP');
    await waitFor('the SIGHUP', () => lines(log).includes('SIGHUP'));
    // SIGUSR2 is not forwarded by wrap: end the agent through its group.
    const pids = readFileSync(`/proc/${wrap.pid}/task/${wrap.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    for (const pid of pids) process.kill(pid, 'SIGUSR2');
    await new Promise((resolve) => wrap.on('close', resolve));
    expect(lines(log).filter((l) => l === 'SIGINT')).toHaveLength(2);
    expect(lines(log).filter((l) => l === 'SIGTERM')).toHaveLength(1);
  });
});

describe('odd inputs mean the same on both routes', () => {
  for (const [route, extra] of routes) {
    it(`${route}: a deleted working directory still runs the command and records the directory`, async () => {
      const dir = join(tempDirForTest('gone-'), 'cwd');
      mkdirSync(dir);
      // The shell enters the directory, removes it, then starts cordon inside it.
      const r = await runProcess(['sh', '-c', `cd ${dir} && rmdir ${dir} && exec ${NODE} ${CORDON_BIN} control run --json -- echo hi`], { env: { ...sandbox.env, ...extra } });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
      const [first, record] = r.stdout.split('\n');
      expect(first).toBe('hi');
      expect(JSON.parse(record!)).toMatchObject({ cwd: `${dir} (deleted)`, exit_code: 0 });
    });

    it(`${route}: wrap in a deleted working directory runs the agent and records the directory`, async () => {
      const dir = join(tempDirForTest('gone-wrap-'), 'cwd');
      mkdirSync(dir);
      const r = await runProcess(['sh', '-c', `cd ${dir} && rmdir ${dir} && exec ${NODE} ${CORDON_BIN} wrap --session gone-${route.replace(' ', '-')} -- echo hi`], { env: { ...sandbox.env, ...extra, CORDON_SAMPLER: 'off' } });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('hi\n');
      expect(r.stderr).not.toMatch(/\n\s+at /);
      const markers = readFileSync(join(sandbox.dataDir, 'runs', `gone-${route.replace(' ', '-')}`, 'markers.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { cwd: string });
      expect(markers[0]!.cwd).toBe(`${dir} (deleted)`);
    });

    it(`${route}: the first -- ends the options, a second one is the command`, async () => {
      const r = await runCordon(['control', 'run', '--', '--', 'echo', 'hi'], { env: { ...sandbox.env, ...extra } });
      expect(r.exitCode).toBe(127);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain("cannot start '--': not found on PATH");
      const plain = await runCordon(['control', 'run', '--', 'echo', '--', 'hi'], { env: { ...sandbox.env, ...extra } });
      expect(plain.stdout).toBe('-- hi\n');
    });

    it(`${route}: the --json record is a line of its own after output without a final newline`, async () => {
      for (const [argv, output] of [
        [['printf', 'no newline'], 'no newline\n'],
        [['printf', 'two\\nlines'], 'two\nlines\n'],
        [['printf', 'ends\\n'], 'ends\n'],
        [['true'], ''],
      ] as const) {
        const r = await runCordon(['control', 'run', '--json', '--', ...argv], { env: { ...sandbox.env, ...extra } });
        expect(r.exitCode).toBe(0);
        const record = r.stdout.slice(output.length);
        expect(r.stdout.slice(0, output.length)).toBe(output);
        expect(record.endsWith('\n')).toBe(true);
        expect(JSON.parse(record)).toMatchObject({ argv: [...argv], exit_code: 0 });
      }
    });
  }
});
