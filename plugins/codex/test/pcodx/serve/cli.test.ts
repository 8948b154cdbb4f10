import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../../../test/support/cli.js';
import { linkCodex, pcodx } from '../support.js';

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox('cordon-serve-cli-');
  linkCodex(box);
});
afterEach(() => box.cleanup());

it('refuses a non-loopback --listen without --allow-remote, and says so', async () => {
  const r = await pcodx(box, undefined, ['serve', '--listen', 'ws://0.0.0.0:0', '--no-launch-upstream', '--upstream', 'ws://127.0.0.1:9']);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toBe('error: --listen ws://0.0.0.0:0 is not a loopback address; anyone who reaches it drives your Codex: add --allow-remote to accept that\n');
});

it('reports an app-server that cannot start (missing binary, early exit) as error: … with exit 1', async () => {
  const missing = await pcodx(box, undefined, ['serve', '--codex-bin', join(box.root, 'no-such-codex')]);
  expect(missing.exitCode).toBe(1);
  expect(missing.stderr).toMatch(/^error: cannot start .*no-such-codex: there is no such file; install it \(npm install -g @openai\/codex\) or pass --codex-bin PATH\n$/);
  const failing = join(box.root, 'failing-codex');
  writeFileSync(failing, '#!/bin/sh\necho "bad flag" >&2\nexit 3\n');
  chmodSync(failing, 0o755);
  const early = await pcodx(box, undefined, ['serve', '--codex-bin', failing]);
  expect(early.exitCode).toBe(1);
  expect(early.stderr).toMatch(/^error: .*failing-codex app-server exited \(code 3\) before listening on unix:\/\/\/.*\/app-server\.sock: bad flag\n$/);
  // Nothing is left behind: the serve's own directory is removed.
  expect(readdirSync(join(box.root, 'run', 'pcodx-serve'))).toEqual([]);
});

it('an app-server that stops at start is reported by its error line, not a backtrace tail, and a missing Codex home is named', async () => {
  const failing = join(box.root, 'rusty-codex');
  // What a Rust program prints under RUST_BACKTRACE=1: its error, then the frames.
  writeFileSync(failing, ['#!/bin/sh', 'echo "Error: the config is broken" >&2', 'echo "stack backtrace:" >&2', 'for i in 0 1 2 3 4 5 6; do echo "   $i: <unknown>" >&2; done', 'exit 1', ''].join('\n'));
  chmodSync(failing, 0o755);
  const home = join(box.root, 'codex-home');
  mkdirSync(home);
  const r = await pcodx(box, undefined, ['serve', '--codex-bin', failing], { env: { CODEX_HOME: home } });
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/^error: .*rusty-codex app-server exited \(code 1\) before listening on unix:\/\/\/.*\/app-server\.sock: Error: the config is broken\n$/);
  // Codex's words when its home is missing: the serve names the home.
  const homeless = join(box.root, 'homeless-codex');
  writeFileSync(homeless, ['#!/bin/sh', 'echo "Error: No such file or directory (os error 2)" >&2', 'exit 1', ''].join('\n'));
  chmodSync(homeless, 0o755);
  const gone = join(box.root, 'no-codex-home');
  const missing = await pcodx(box, undefined, ['serve', '--codex-bin', homeless], { env: { CODEX_HOME: gone } });
  expect(missing.stderr).toContain(`: Error: No such file or directory (os error 2); Codex's home ${gone} does not exist (CODEX_HOME): run \`codex\` once, or create it\n`);
  // Another failure with the home missing as well: only the failure.
  const other = await pcodx(box, undefined, ['serve', '--codex-bin', failing], { env: { CODEX_HOME: gone } });
  expect(other.stderr).toMatch(/: Error: the config is broken\n$/);
});

it('refuses bad addresses and a short PCODX_SERVE_TOKEN before starting anything', async () => {
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => pcodx(box, undefined, ['serve', ...args], { env });
  expect(await run(['--upstream', 'unix:///tmp/x.sock'])).toMatchObject({ exitCode: 1, stderr: "error: --upstream unix:///tmp/x.sock: a launched app-server listens on unix:// (a socket in the serve's own directory) or ws://IP:PORT\n" });
  expect(await run(['--no-launch-upstream'])).toMatchObject({ exitCode: 1, stderr: 'error: --no-launch-upstream needs the address of the running app-server: --upstream unix:///PATH or ws://HOST:PORT\n' });
  expect(await run(['--listen', 'tcp://127.0.0.1:1', '--no-launch-upstream', '--upstream', 'ws://127.0.0.1:9'])).toMatchObject({ exitCode: 1, stderr: 'error: --listen must be unix://, unix:///PATH or ws://HOST:PORT (got tcp://)\n' });
  const short = await run(['--listen', 'ws://127.0.0.1:0', '--no-launch-upstream', '--upstream', 'ws://127.0.0.1:9'], { PCODX_SERVE_TOKEN: 'short' });
  expect(short).toMatchObject({ exitCode: 1, stderr: 'error: PCODX_SERVE_TOKEN must hold at least 32 characters\n' });
  const unset = await run(['--no-launch-upstream', '--upstream', 'ws://127.0.0.1:9', '--upstream-auth-token-env', 'NO_SUCH_VAR_X'], { NO_SUCH_VAR_X: '' });
  expect(unset).toMatchObject({ exitCode: 1, stderr: 'error: --upstream-auth-token-env NO_SUCH_VAR_X: that environment variable is not set\n' });
  // The runtime directory must be the user's alone.
  const open = join(box.root, 'open-run');
  mkdirSync(open, { mode: 0o755 });
  chmodSync(open, 0o755);
  const refused = await run(['--codex-bin', join(box.root, 'no-such-codex')], { CORDON_RUNTIME_DIR: open });
  expect(refused).toMatchObject({
    exitCode: 1,
    stderr: `error: the runtime directory ${open} is open to group or others (mode 755); it must be owner-only (mode 700): run \`chmod 700 ${open}\`, or set CORDON_RUNTIME_DIR to another directory (one that does not exist yet is created owner-only)\n`,
  });
  // Its pcodx-serve directory too, and a path with a space is quoted for the shell.
  const spaced = join(box.root, 'my run');
  mkdirSync(join(spaced, 'pcodx-serve'), { recursive: true, mode: 0o700 });
  chmodSync(spaced, 0o700);
  chmodSync(join(spaced, 'pcodx-serve'), 0o770);
  const child = await run(['--codex-bin', join(box.root, 'no-such-codex')], { CORDON_RUNTIME_DIR: spaced });
  expect(child.stderr).toBe(`error: the runtime directory ${join(spaced, 'pcodx-serve')} is open to group or others (mode 770); it must be owner-only (mode 700): run \`chmod 700 '${join(spaced, 'pcodx-serve')}'\`, or set CORDON_RUNTIME_DIR to another directory (one that does not exist yet is created owner-only)\n`);
});

it('model-turn: an app-server that never answers hits --timeout-seconds, one that dies is reported; nothing is recorded or logged', async () => {
  const db = join(box.root, 'pcodx.sqlite3');
  expect((await pcodx(box, db, ['record', '--session', 'm', '--role', 'user', '--text', 'q'])).exitCode).toBe(0);
  const silent = join(box.root, 'silent-codex');
  writeFileSync(silent, '#!/bin/sh\nexec sleep 600\n');
  chmodSync(silent, 0o755);
  const slow = await pcodx(box, db, ['model-turn', '--session', 'm', '--text', 'hello', '--codex-bin', silent, '--timeout-seconds', '1']);
  expect([slow.exitCode, slow.stderr]).toEqual([1, 'error: the model turn did not finish within 1 s\n']);
  // An app-server whose stdout holds a line of JSON that is no message (`null`) crashed model-turn:
  // `TypeError: Cannot read properties of null (reading 'method')` with a stack trace.
  const odd = join(box.root, 'odd-codex');
  writeFileSync(odd, '#!/bin/sh\necho null\necho "[1]"\necho \'"text"\'\nexec sleep 600\n');
  chmodSync(odd, 0o755);
  const oddRun = await pcodx(box, db, ['model-turn', '--session', 'm', '--text', 'hello', '--codex-bin', odd, '--timeout-seconds', '1']);
  expect([oddRun.exitCode, oddRun.stderr]).toEqual([1, 'error: the model turn did not finish within 1 s\n']);
  // An error response that is not `{code, message}` is named as it is, not `undefined (code undefined)`.
  const malformed = join(box.root, 'malformed-codex');
  writeFileSync(malformed, '#!/bin/sh\nread line\necho \'{"id":1,"error":"boom"}\'\nexec sleep 600\n');
  chmodSync(malformed, 0o755);
  const malformedRun = await pcodx(box, db, ['model-turn', '--session', 'm', '--text', 'hello', '--codex-bin', malformed, '--timeout-seconds', '30']);
  expect([malformedRun.exitCode, malformedRun.stderr]).toEqual([1, 'error: a malformed error: "boom"\n']);
  const dying = join(box.root, 'dying-codex');
  writeFileSync(dying, '#!/bin/sh\necho "no app-server here" >&2\nexit 4\n');
  chmodSync(dying, 0o755);
  const dead = await pcodx(box, db, ['model-turn', '--session', 'm', '--text', 'hello', '--codex-bin', dying]);
  expect(dead.exitCode).toBe(1);
  expect(dead.stderr).toMatch(/^error: .*dying-codex app-server exited \(4\): no app-server here\n$/);
  expect((await pcodx(box, db, ['ids', '--session', 'm'])).stdout).toBe('session_id=m\nmsg1\n');
  expect(existsSync(join(box.root, 'pcodx.usage.jsonl'))).toBe(false);
  // A timeout past what a Node timer holds (2^31 - 1 ms) fired after 1 ms: the turn failed at once,
  // `the model turn did not finish within 2147484 s`, after Node's TimeoutOverflowWarning.
  const huge = await pcodx(box, db, ['model-turn', '--session', 'm', '--text', 'hello', '--codex-bin', silent, '--timeout-seconds', '2147484']);
  expect([huge.exitCode, huge.stderr]).toEqual([2, 'error: --timeout-seconds: expected an integer less than or equal to 2147483 but received: 2147484; see `cordon pcodx model-turn --help`\n']);
  const unknown = await pcodx(box, db, ['model-turn', '--session', 'ghost', '--text', 'hello', '--codex-bin', dying]);
  expect([unknown.exitCode, unknown.stderr]).toEqual([1, 'error: unknown session `ghost` (`cordon pcodx sessions` lists the sessions of this ledger)\n']);
});

it('refuses a PCODX_LIVE_CONTEXT_DIR open to the group before listening', async () => {
  const live = join(box.root, 'live');
  mkdirSync(live, { mode: 0o750 });
  chmodSync(live, 0o750);
  const r = await pcodx(box, join(box.root, 'l.sqlite3'), ['serve', '--enable-pcodx-tools', '--listen', 'ws://127.0.0.1:0', '--no-launch-upstream', '--upstream', 'ws://127.0.0.1:9'], { env: { PCODX_LIVE_CONTEXT_DIR: live } });
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toBe(`error: PCODX_LIVE_CONTEXT_DIR ${live} is open to group or others (mode 750); it must be owner-only (mode 700): run \`chmod 700 ${live}\`, or set PCODX_LIVE_CONTEXT_DIR to another directory\n`);
});
