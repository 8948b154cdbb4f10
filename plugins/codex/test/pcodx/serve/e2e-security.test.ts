import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { runProcess, CORDON_BIN } from '../../../../../test/support/cli.js';
import { holdPerTest } from '../../../../../test/support/fake-models/index.js';
import { waitFor } from '../../../../../test/support/wait.js';
import { codexBox, killServes, startServeProcess, type ServeProcess } from './support.js';

// The security promises of `pcodx serve` with the real Codex (docs/pcodx.md, "Security model").

const held = holdPerTest();
afterEach(killServes);
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanups.splice(0)) f();
});

/** `/proc/<pid>/stat` fields after the command name (field 3 first), or undefined when the pid is gone. */
const statOf = (pid: number) => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
};
/**
 * True while process `pid` runs. A zombie counts as gone: it has exited and only waits to be
 * reaped, which an orphan's new parent (PID 1 of this VM) may do late.
 */
const alive = (pid: number) => {
  const state = statOf(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
};
/** True while any process of group `pgid` runs (zombies do not count). */
const groupAlive = (pgid: number) => readdirSync('/proc').some((name) => /^\d+$/.test(name) && statOf(Number(name))?.[2] === String(pgid) && alive(Number(name)));
const ppidOf = (pid: number) => Number(statOf(pid)![1]);
const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

async function until(what: string, probe: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A TCP listener that is not ours: counts every connection it receives. */
async function stranger(port = 0): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`port ${port} is taken by another process; this test needs to listen there itself`) : error),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  cleanups.push(() => server.close());
  return { port: (server.address() as { port: number }).port, connections: () => connections };
}

/** Runs the banner's `connect=` line through a shell, as `codex exec` (it takes the TUI's flags), with `prompt`. */
function runConnectLine(serve: ServeProcess, bin: string, prompt: string, env: NodeJS.ProcessEnv, cwd: string) {
  const line = serve.banner.connect!;
  expect(line).toMatch(/(^| )codex --remote /);
  const command = `${line.replace(/(^| )codex --remote /, `$1'${bin}' exec --skip-git-repo-check --remote `)} '${prompt}'`;
  return runProcess(['/bin/sh', '-c', command], { env, cwd, timeoutMs: 90_000 });
}

const serveDirOf = (serve: ServeProcess) => dirname(serve.listen.slice('unix://'.length));

it('by default both sockets are unix sockets in an owner-only directory only this serve knows; the old fixed ports receive nothing; the printed connect line works', async () => {
  const { codex, bin, env } = await codexBox(held, 'cordon-serve-sec-');
  const oldListen = await stranger(48570);
  const oldUpstream = await stranger(48571);
  const serve = await startServeProcess(['--codex-bin', bin], env, codex.workdir);
  const dir = serveDirOf(serve);
  expect(serve.listen).toBe(`unix://${join(dir, 'serve.sock')}`);
  expect(serve.banner.upstream).toBe(`unix://${join(dir, 'app-server.sock')}`);
  expect(serve.banner.connect).toBe(`codex --remote ${serve.listen}`);
  expect(serve.banner.token_file).toBeUndefined();
  expect(dir.startsWith(join(String(env.CORDON_RUNTIME_DIR), 'pcodx-serve', 's-'))).toBe(true);
  for (const d of [String(env.CORDON_RUNTIME_DIR), dirname(dir), dir]) expect(statSync(d).mode & 0o777).toBe(0o700);
  expect(statSync(join(dir, 'owner.json')).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(join(dir, 'owner.json'), 'utf8')).serve.pid).toBe(serve.child.pid);
  // The app-server was told to listen there (Codex links the path to the socket it binds).
  expect(cmdline(Number(serve.banner.upstream_pid))).toEqual(expect.arrayContaining(['app-server', '--listen', serve.banner.upstream]));
  expect(lstatSync(join(dir, 'app-server.sock')).isSymbolicLink() || lstatSync(join(dir, 'app-server.sock')).isSocket()).toBe(true);

  const run = await runConnectLine(serve, bin, 'hello through the default socket', env, codex.workdir);
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout).toContain('ECHO hello through the default socket');
  expect([oldListen.connections(), oldUpstream.connections()]).toEqual([0, 0]);
  expect(await serve.stop()).toBe(0);
  expect(existsSync(dir)).toBe(false);
}, 180_000);

it('a stranger already listening on the chosen upstream port: serve fails with a clear error, exit 1, and sends it nothing', async () => {
  const { box, codex, bin, env } = await codexBox(held, 'cordon-serve-sec-');
  const other = await stranger();
  const r = await runProcess([process.execPath, CORDON_BIN, 'pcodx', 'serve', '--codex-bin', bin, '--upstream', `ws://127.0.0.1:${other.port}`], { env, cwd: codex.workdir, timeoutMs: 60_000 });
  expect(r.exitCode).toBe(1);
  expect(r.stdout).toBe('');
  const message = new RegExp(`^error: another process \\(not the app-server this serve started, pid (\\d+)\\) listens on ws://127\\.0\\.0\\.1:${other.port}; refusing to relay to it\\n$`);
  expect(r.stderr).toMatch(message);
  expect(other.connections()).toBe(0);
  // Nothing it started is left: not the app-server, not its directory.
  const pid = Number(message.exec(r.stderr)![1]);
  await until('the app-server to be gone', () => !groupAlive(pid));
  expect(readdirSync(join(box.root, 'run', 'pcodx-serve'))).toEqual([]);
}, 120_000);

it('a socket at the app-server path held by a process outside the app-server it started is refused; that process receives nothing', async () => {
  const { box, codex, env } = await codexBox(held, 'cordon-serve-sec-');
  const log = join(box.root, 'planted.log');
  const pidFile = join(box.root, 'planted.pid');
  // A fake codex: it makes a process in a session of its own listen on the path it was given, then waits.
  const fake = join(box.root, 'planting-codex');
  writeFileSync(
    fake,
    [
      `#!${process.execPath}`,
      "const { spawn } = require('node:child_process');",
      "const path = process.argv[process.argv.indexOf('--listen') + 1].slice('unix://'.length);",
      `const code = "require('node:net').createServer(() => require('node:fs').appendFileSync(" + ${JSON.stringify(JSON.stringify(log))} + ", 'connection\\\\n')).listen(" + JSON.stringify(path) + ")";`,
      "const planted = spawn(process.execPath, ['-e', code], { detached: true, stdio: 'ignore' });",
      `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(planted.pid));`,
      'planted.unref();',
      'setInterval(() => undefined, 1000);',
      '',
    ].join('\n'),
  );
  chmodSync(fake, 0o755);
  const r = await runProcess([process.execPath, CORDON_BIN, 'pcodx', 'serve', '--codex-bin', fake], { env, cwd: codex.workdir, timeoutMs: 60_000 });
  const planted = Number(readFileSync(pidFile, 'utf8'));
  cleanups.push(() => alive(planted) && process.kill(planted, 'SIGKILL'));
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/^error: another process \(not the app-server this serve started, pid \d+\) listens on unix:\/\/\/.*\/app-server\.sock; refusing to relay to it\n$/);
  expect(existsSync(log)).toBe(false);
}, 120_000);

it('TCP on both sides: each listener requires a capability token, the tokens appear in no argv, output or log, and the printed connect line works', async () => {
  const { codex, bin, env } = await codexBox(held, 'cordon-serve-sec-');
  const serve = await startServeProcess(['--codex-bin', bin, '--listen', 'ws://127.0.0.1:0', '--upstream', 'ws://127.0.0.1:0'], env, codex.workdir);
  expect(serve.listen).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
  const tokenFile = serve.banner.token_file!;
  expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
  expect(statSync(dirname(tokenFile)).mode & 0o777).toBe(0o700);
  const token = readFileSync(tokenFile, 'utf8').trim();
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(serve.banner.token_env).toBe('PCODX_SERVE_TOKEN');
  expect(serve.banner.connect).toBe(`PCODX_SERVE_TOKEN="$(cat ${tokenFile})" codex --remote ${serve.listen} --remote-auth-token-env PCODX_SERVE_TOKEN`);

  const withToken = await runConnectLine(serve, bin, 'hello over tcp', env, codex.workdir);
  expect(withToken.exitCode, withToken.stderr).toBe(0);
  expect(withToken.stdout).toContain('ECHO hello over tcp');
  const without = await runProcess([bin, 'exec', '--skip-git-repo-check', '--remote', serve.listen, 'no token'], { env, cwd: codex.workdir, timeoutMs: 60_000 });
  expect(without.exitCode).not.toBe(0);
  expect(without.stderr).toContain('401 Unauthorized');

  // The app-server itself refuses a client without its token (Codex's --ws-auth capability-token).
  const upstream = serve.banner.upstream!;
  expect(upstream).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
  const status = await new Promise<number>((resolve) => {
    const socket = new WebSocket(upstream);
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.once('open', () => resolve(101));
    socket.once('error', () => resolve(-1));
  });
  expect(status).toBe(401);
  const appServer = Number(serve.banner.upstream_pid);
  const args = cmdline(appServer);
  expect(args).toEqual(expect.arrayContaining(['--ws-auth', 'capability-token', '--ws-token-sha256']));
  expect(args[args.indexOf('--ws-token-sha256') + 1]).toMatch(/^[0-9a-f]{64}$/);
  // No process the serve started holds a token in its argv; the serve's output and log hold none either.
  for (const pid of [serve.child.pid!, ppidOf(appServer), appServer]) {
    for (const arg of cmdline(pid)) expect(arg.includes(token) || /Bearer/.test(arg) || /^[A-Za-z0-9_-]{43}$/.test(arg)).toBe(false);
  }
  expect(await serve.stop()).toBe(0);
  expect(serve.stderr()).not.toContain(token);
  expect(serve.stderr()).not.toContain('Bearer');
  expect(Object.values(serve.banner).join('\n')).not.toContain(token);
  expect(existsSync(tokenFile)).toBe(false);
}, 180_000);

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL'] as const) {
  it(`${signal} to the serve: the app-server and the watchdog are gone with it${signal === 'SIGKILL' ? '; the next serve removes what it left' : ''}`, async () => {
    const { codex, bin, env } = await codexBox(held, 'cordon-serve-sec-');
    const serve = await startServeProcess(['--codex-bin', bin], env, codex.workdir);
    const appServer = Number(serve.banner.upstream_pid);
    const watchdog = ppidOf(appServer);
    expect(watchdog).not.toBe(serve.child.pid);
    expect(ppidOf(watchdog)).toBe(serve.child.pid);
    const dir = serveDirOf(serve);
    serve.child.kill(signal);
    const code = await serve.exited;
    await until('the app-server group to be gone', () => !groupAlive(appServer));
    await until('the watchdog to be gone', () => !alive(watchdog));
    if (signal !== 'SIGKILL') {
      expect(code, serve.stderr()).toBe(0);
      expect(serve.stderr()).toContain(`event=stopped signal=${signal}`);
      expect(existsSync(dir)).toBe(false);
      return;
    }
    expect(existsSync(dir)).toBe(true);
    const next = await startServeProcess(['--codex-bin', bin], env, codex.workdir);
    expect(next.stderr()).toContain(`event=stale_serve_cleaned dir=${dir} stopped_processes=0`);
    expect(existsSync(dir)).toBe(false);
    expect(await next.stop()).toBe(0);
  }, 120_000);
}

for (const signal of ['SIGINT', 'SIGHUP'] as const) {
  it(`${signal} to the serve's whole process group (Ctrl-C, a closed terminal): a clean stop, exit 0, nothing left`, async () => {
    const { codex, bin, env } = await codexBox(held, 'cordon-serve-sec-');
    const serve = await startServeProcess(['--codex-bin', bin], env, codex.workdir, { detached: true });
    const appServer = Number(serve.banner.upstream_pid);
    const watchdog = ppidOf(appServer);
    process.kill(-serve.child.pid!, signal);
    expect(await serve.exited, serve.stderr()).toBe(0);
    expect(serve.stderr()).toContain(`event=stopped signal=${signal}`);
    await until('the app-server group to be gone', () => !groupAlive(appServer));
    await until('the watchdog to be gone', () => !alive(watchdog));
    expect(existsSync(serveDirOf(serve))).toBe(false);
  }, 120_000);
}

it('the app-server dying ends the serve with exit 1 and a clear error; nothing is relayed after', async () => {
  const { codex, bin, env } = await codexBox(held, 'cordon-serve-sec-');
  const serve = await startServeProcess(['--codex-bin', bin], env, codex.workdir);
  const appServer = Number(serve.banner.upstream_pid);
  process.kill(-appServer, 'SIGKILL');
  expect(await serve.exited).toBe(1);
  expect(serve.stderr()).toMatch(new RegExp(`error: the app-server this serve started \\(pid ${appServer}\\) exited \\(signal SIGKILL\\); the serve stopped rather than relay to anything else\\n`));
  expect(existsSync(serveDirOf(serve))).toBe(false);
}, 120_000);

it('a serve and its watchdog both killed leave an orphaned app-server: the next serve stops it (proven by pid and start time) and spares a process it cannot prove it started', async () => {
  const { box, codex, bin, env } = await codexBox(held, 'cordon-serve-sec-');
  const first = await startServeProcess(['--codex-bin', bin], env, codex.workdir);
  const appServer = Number(first.banner.upstream_pid);
  const watchdog = ppidOf(appServer);
  const dir = serveDirOf(first);
  process.kill(watchdog, 'SIGKILL');
  process.kill(first.child.pid!, 'SIGKILL');
  await first.exited;
  await until('the watchdog to be gone', () => !alive(watchdog));
  expect(groupAlive(appServer)).toBe(true);

  // A record naming a live process with another start time (a reused pid): never signalled.
  const bystander = spawn('sleep', ['600'], { stdio: 'ignore' });
  cleanups.push(() => bystander.kill('SIGKILL'));
  const decoy = join(box.root, 'run', 'pcodx-serve', 's-decoy');
  mkdirSync(decoy, { mode: 0o700 });
  writeFileSync(join(decoy, 'owner.json'), JSON.stringify({ version: 1, serve: { pid: 2 ** 22 + 7, start: '1' }, appServer: [{ pid: bystander.pid, start: '1' }] }), { mode: 0o600 });

  const next = await startServeProcess(['--codex-bin', bin], env, codex.workdir);
  expect(next.stderr()).toMatch(new RegExp(`event=stale_serve_cleaned dir=${dir} stopped_processes=[1-9]`));
  expect(next.stderr()).toContain(`event=stale_serve_cleaned dir=${decoy} stopped_processes=0`);
  expect(groupAlive(appServer)).toBe(false);
  expect(alive(bystander.pid!)).toBe(true);
  expect([existsSync(dir), existsSync(decoy)]).toEqual([false, false]);
  expect(await next.stop()).toBe(0);
}, 180_000);

it('two serves with the same PCODX_WS_FIXTURE_DIR each capture a real codex exec into a run directory of their own; neither crashes', async () => {
  const { box, codex, bin, env: base } = await codexBox(held, 'cordon-serve-sec-');
  const fixtures = join(box.root, 'fixtures');
  const env = { ...base, PCODX_WS_FIXTURE_DIR: fixtures };
  const [a, b] = [await startServeProcess(['--codex-bin', bin], env, codex.workdir), await startServeProcess(['--codex-bin', bin], env, codex.workdir)];
  for (const [i, serve] of [a, b].entries()) {
    const run = await runConnectLine(serve, bin, `captured ${i}`, env, codex.workdir);
    expect(run.exitCode, `${run.stderr}\n${serve.stderr()}`).toBe(0);
    expect(run.stdout).toContain(`ECHO captured ${i}`);
  }
  expect([await a.stop(), await b.stop()]).toEqual([0, 0]);
  const runs = readdirSync(fixtures).sort();
  expect(runs).toHaveLength(2);
  for (const run of runs) {
    const files = readdirSync(join(fixtures, run, 'conn-1'));
    expect(files).toContain('000001-c2p.json');
    expect(JSON.parse(readFileSync(join(fixtures, run, 'conn-1', '000001-c2p.json'), 'utf8')).method).toBe('initialize');
  }
  expect(a.stderr() + b.stderr()).not.toContain('capture_failed');
}, 180_000);

it('identity is checked again for every client: once the listener changed hands, clients are refused and the new holder receives nothing', async () => {
  const { box, codex, env } = await codexBox(held, 'cordon-serve-sec-');
  const [flip, flipped, log, pidFile] = ['flip', 'flipped', 'taker.log', 'taker.pid'].map((n) => join(box.root, n));
  // A fake codex that listens on its path itself, and when told (the file `flip` appears) closes its
  // listener and lets a process outside its group take the path over, staying alive itself.
  const fake = join(box.root, 'flipping-codex');
  const taker = `const fs = require('node:fs'); const path = process.argv[1]; try { fs.unlinkSync(path); } catch {} require('node:net').createServer(() => fs.appendFileSync(${JSON.stringify(log)}, 'connection\\n')).listen(path, () => fs.writeFileSync(${JSON.stringify(flipped)}, ''));`;
  writeFileSync(
    fake,
    [
      `#!${process.execPath}`,
      "const fs = require('node:fs');",
      "const path = process.argv[process.argv.indexOf('--listen') + 1].slice('unix://'.length);",
      "const server = require('node:net').createServer((s) => s.destroy()).listen(path);",
      'const poll = setInterval(() => {',
      `  if (!fs.existsSync(${JSON.stringify(flip)})) return;`,
      '  clearInterval(poll);',
      '  server.close(() => {',
      `    const t = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(taker)}, path], { detached: true, stdio: 'ignore' });`,
      `    fs.writeFileSync(${JSON.stringify(pidFile)}, String(t.pid));`,
      '    t.unref();',
      '  });',
      '}, 20);',
      'setInterval(() => undefined, 1000);',
      '',
    ].join('\n'),
  );
  chmodSync(fake, 0o755);
  const serve = await startServeProcess(['--codex-bin', fake], env, codex.workdir);
  writeFileSync(flip, '');
  await until('the listener to change hands', () => existsSync(flipped));
  cleanups.push(() => {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  const client = new WebSocket(`ws+unix:${serve.listen.slice('unix://'.length)}:/`);
  const code = await new Promise<number>((resolve) => client.once('close', (c) => resolve(c)));
  expect(code).toBe(1011);
  expect(serve.stderr()).toContain('event=client_refused connection=1 reason="the app-server no longer holds its listener"');
  expect(existsSync(log)).toBe(false);
  expect(await serve.stop()).toBe(0);
}, 120_000);

// The banner went to stdout unescaped: on a terminal, `session_id=` of the last-written session
// (any writer of the ledger names it; a session name refuses C0 controls but not a bidirectional
// override or a C1 control) reordered or drove the terminal, where every other pcodx command
// escapes what it prints there.
it("the banner on a terminal escapes what a terminal would act on in the session's name", async () => {
  const box = await codexBox(held, 'cordon-serve-banner-');
  const name = 'ok\u202eevil\u009b31m';
  const init = await runProcess([process.execPath, CORDON_BIN, 'pcodx', 'init', '--session', name], { env: box.env });
  expect(init.exitCode, init.stderr).toBe(0);
  const line = [process.execPath, CORDON_BIN, 'pcodx', 'serve', '--enable-pcodx-tools', '--codex-bin', box.bin].map((a) => `'${a}'`).join(' ');
  const script = spawn('script', ['-qec', line, '/dev/null'], { env: box.env, cwd: box.codex.workdir, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  script.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const closed = new Promise((r) => script.once('close', r));
  cleanups.push(() => script.kill('SIGKILL'));
  await waitFor(() => /session_id=.*\r\n/.test(out), { what: 'the banner', timeoutMs: 60_000 });
  script.kill('SIGTERM');
  await closed;
  expect(out).toContain('session_id=ok\\u202eevil\\u009b31m\r\n');
  expect(out).not.toMatch(/[\u202e\u009b]/);
}, 120_000);
