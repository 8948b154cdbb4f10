import { chmodSync, writeFileSync } from 'node:fs';
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
  const missing = await pcodx(box, undefined, ['serve', '--listen', 'ws://127.0.0.1:0', '--upstream', 'ws://127.0.0.1:0', '--codex-bin', join(box.root, 'no-such-codex')]);
  expect(missing.exitCode).toBe(1);
  expect(missing.stderr).toMatch(/^error: cannot start .*no-such-codex: spawn .* ENOENT\n$/);
  const failing = join(box.root, 'failing-codex');
  writeFileSync(failing, '#!/bin/sh\necho "bad flag" >&2\nexit 3\n');
  chmodSync(failing, 0o755);
  const early = await pcodx(box, undefined, ['serve', '--listen', 'ws://127.0.0.1:0', '--upstream', 'ws://127.0.0.1:0', '--codex-bin', failing]);
  expect(early.exitCode).toBe(1);
  expect(early.stderr).toContain('app-server exited (code 3) before listening: bad flag');
});
