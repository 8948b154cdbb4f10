import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { requireAgent } from '../../../../../test/support/agents.js';
import { makeSandbox, type Sandbox } from '../../../../../test/support/cli.js';
import { linkCodex, pcodx } from '../support.js';

// The real Codex app-server stopping at start: the serve reports its error line even with
// RUST_BACKTRACE set (the tail of stderr is then frames), and names a missing Codex home.

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox('cordon-serve-start-');
  linkCodex(box);
});
afterEach(() => box.cleanup());

it('the real app-server without a Codex home: its error and the missing home, not backtrace frames', async () => {
  const bin = requireAgent('codex').bin;
  const home = box.dir('bare-home');
  expect(existsSync(join(home, '.codex'))).toBe(false);
  const env = { HOME: home, CODEX_HOME: '', RUST_BACKTRACE: '1' };
  const r = await pcodx(box, undefined, ['serve', '--codex-bin', bin], { env, timeoutMs: 60_000 });
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toMatch(/app-server exited \(code 1\) before listening on unix:\/\/\/\S+: Error: No such file or directory \(os error 2\); /);
  expect(r.stderr).toContain(`Codex's home ${join(home, '.codex')} does not exist (the default): run \`codex\` once, or create it`);
  expect(r.stderr).not.toMatch(/\d+: <unknown>/);
}, 90_000);
