import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// control run puts its signal handlers on before it forks the command (launch.ts forwardSignals).
// A signal that comes while the command starts must still reach it, once; and when the command
// never starts, that signal must end cordon as it would have without the handlers. Run in a
// child process: signals reach process.on() handlers on the main thread only.
const LAUNCH = join(import.meta.dirname, '../../dist/control/launch.js');

// Each script waits for what it needs, never for a time (a loaded machine stretches any): `heard`
// resolves once this process's listeners have run for a signal it sent itself (a listener added
// after the forwarder's runs after it, and \`once\` takes itself off again; the interval keeps the
// event loop, whose signal handles do not, alive until then), `until` polls.
const HELPERS = `const heard = (signal) => new Promise((r) => { const alive = setInterval(() => {}, 1000); process.once(signal, () => { clearInterval(alive); r(); }); });
const until = async (condition) => { while (!condition()) await new Promise((r) => setTimeout(r, 20)); };`;

function run(body: string): { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string } {
  const script = `const { forwardSignals } = await import(${JSON.stringify(LAUNCH)}); const { spawn } = await import('node:child_process');\n${HELPERS}\n${body}`;
  // SIGKILL at the bound, so a script that never ends is not mistaken for one a SIGTERM ended.
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

describe('forwardSignals', () => {
  it('a signal that came before the command had a pid reaches it once it has one, and the next as it comes', () => {
    const r = run(`
      const f = forwardSignals(false);
      const early = heard('SIGUSR1');
      process.kill(process.pid, 'SIGUSR1');
      await early;
      const child = spawn('/bin/sh', ['-c', 'trap "echo usr1" USR1; trap "echo usr2; exit 0" USR2; echo ready; while :; do sleep 0.05; done'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      // The next signal once the early one has reached the command.
      child.stdout.on('data', (d) => { out += d; if (out === 'ready\\n') f.started(child.pid); if (out === 'ready\\nusr1\\n') process.kill(process.pid, 'SIGUSR2'); });
      child.on('exit', (code) => { f.stop(); console.log(JSON.stringify({ out, code })); });
    `);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ out: 'ready\nusr1\nusr2\n', code: 0 });
  });

  it('when the command never starts, stop() ends cordon by the signal that came meanwhile', () => {
    const r = run(`
      const f = forwardSignals(false);
      const early = heard('SIGTERM');
      process.kill(process.pid, 'SIGTERM');
      await early;
      console.log('still here');
      f.stop();
      // Kept alive until the signal ends it (run's bound ends it by SIGKILL otherwise).
      setInterval(() => {}, 1000);
    `);
    expect({ signal: r.signal, stdout: r.stdout }).toEqual({ signal: 'SIGTERM', stdout: 'still here\n' });
  });

  it('a SIGUSR1 that came before a command that never started is dropped: Node would open its inspector for it', () => {
    const r = run(`
      const f = forwardSignals(false);
      const early = heard('SIGUSR1');
      process.kill(process.pid, 'SIGUSR1');
      await early;
      f.stop();
      // A window in which the inspector must NOT open.
      await new Promise((r) => setTimeout(r, 300));
      console.log(JSON.stringify({ inspector: (await import('node:inspector')).url() ?? null }));
    `);
    expect({ status: r.status, signal: r.signal, stderr: r.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual({ inspector: null });
  });

  it('stop() after a start raises nothing and forwards nothing more', () => {
    const r = run(`
      const f = forwardSignals(false);
      const child = spawn('/bin/sh', ['-c', 'trap "echo usr2" USR2; echo ready; sleep 1; echo done'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      let counted = 0;
      process.on('SIGUSR2', () => counted++);
      child.stdout.on('data', (d) => { out += d; if (out === 'ready\\n') { f.started(child.pid); f.stop(); process.kill(process.pid, 'SIGUSR2'); } });
      child.on('exit', (code) => console.log(JSON.stringify({ out, code, counted, after: process.listenerCount('SIGUSR2') })));
    `);
    expect({ status: r.status, signal: r.signal, stderr: r.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    // The command never saw it; the other listener heard it once; the forwarder's handler came off.
    expect(JSON.parse(r.stdout)).toEqual({ out: 'ready\ndone\n', code: 0, counted: 1, after: 1 });
  });

  it('after stop(), a signal nobody else listens for ends cordon as it would have without the handlers', () => {
    const r = run(`
      const f = forwardSignals(false);
      f.started(process.pid + 1000000);
      f.stop();
      console.log('stopped');
      process.kill(process.pid, 'SIGTERM');
      // Kept alive until the signal ends it (run's bound ends it by SIGKILL otherwise).
      setInterval(() => {}, 1000);
    `);
    expect({ signal: r.signal, stdout: r.stdout }).toEqual({ signal: 'SIGTERM', stdout: 'stopped\n' });
  });

  it('commands run one after another in one process leave one handler per signal, not one per command', () => {
    const r = run(`
      for (let i = 0; i < 20; i++) {
        const f = forwardSignals(false);
        const child = spawn('/bin/true', [], { detached: true, stdio: 'ignore' });
        await new Promise((done) => child.once('spawn', done));
        f.started(child.pid);
        await new Promise((done) => child.once('exit', done));
        f.stop();
      }
      console.log(JSON.stringify(['SIGTERM', 'SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'].map((s) => process.listenerCount(s))));
    `);
    // No MaxListenersExceededWarning on stderr either.
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('two commands forwarded to at once each get the signal once; a stopped one no more', () => {
    const r = run(`
      const script = 'trap "echo usr2" USR2; echo ready; while :; do sleep 0.05; done';
      const start = async () => {
        const f = forwardSignals(false);
        const child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        await new Promise((done) => child.stdout.once('data', done));
        f.started(child.pid);
        return { f, child, out: () => out };
      };
      const a = await start();
      const b = await start();
      const count = (c) => c.out().split('usr2').length - 1;
      process.kill(process.pid, 'SIGUSR2');
      await until(() => count(a) === 1 && count(b) === 1);
      a.f.stop();
      process.kill(process.pid, 'SIGUSR2');
      await until(() => count(b) === 2);
      // A window in which the stopped one must NOT get it (it would have come with b's).
      await new Promise((r) => setTimeout(r, 300));
      for (const c of [a, b]) process.kill(-c.child.pid, 'SIGKILL');
      console.log(JSON.stringify({ a: a.out(), b: b.out() }));
    `);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual({ a: 'ready\nusr2\n', b: 'ready\nusr2\nusr2\n' });
  });
});
