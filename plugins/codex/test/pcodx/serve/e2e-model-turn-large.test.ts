import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT, runProcess } from '../../../../../test/support/cli.js';
import { holdPerTest } from '../../../../../test/support/fake-models/index.js';
import { APP_SERVER_WS_LIMITS } from '../../../src/pcodx/app-server/limits.js';
import { pcodx, tableRows } from '../support.js';
import { codexBox, requestText } from './support.js';

// `pcodx model-turn` seeds its fresh thread on the real Codex 0.171 app-server over stdio with a
// history above 16 MiB: the `thread/inject_items` calls each stay within the frame the app-server's
// websocket reader takes (src/pcodx/app-server/inject.ts, the serve's batching), in order, and the
// model gets the whole history.

const held = holdPerTest();
const MODEL_TURN_BIN = join(REPO_ROOT, 'plugins/codex/bin/pcodx-model-turn.js');
const MIB = 1024 * 1024;

it('model-turn injects a history above 16 MiB in ordered calls of at most 16 MiB each, and the model sees all of it', async () => {
  const { box, server, codex, bin, db, env } = await codexBox(held, 'cordon-model-turn-large-');
  const p = (args: string[]) => pcodx(box, db, args, { env, cwd: codex.workdir });
  // Five messages of 5 MiB (multi-byte characters and control characters among them): about 25 MiB of history.
  const roles = ['user', 'assistant', 'user', 'assistant', 'user'];
  for (const [i, role] of roles.entries()) {
    const file = join(box.root, `m${i}.txt`);
    writeFileSync(file, `MARK_${i} é\u001b[0m ${'ab'.repeat(2.5 * MIB)} END_${i}`);
    const r = await p(['record', '--session', 'big', '--cwd', codex.workdir, '--role', role, '--text-file', file]);
    expect(r.exitCode, r.stderr).toBe(0);
  }

  // The real codex behind a wrapper that keeps a copy of every line model-turn writes to it.
  const stdinCopy = join(box.root, 'app-server-stdin.jsonl');
  const wrapper = join(box.root, 'codex-tee.sh');
  writeFileSync(wrapper, `#!/bin/sh\ntee '${stdinCopy}' | '${bin}' "$@"\n`);
  chmodSync(wrapper, 0o700);

  const contextOut = join(box.root, 'context.json');
  const run = await runProcess([process.execPath, MODEL_TURN_BIN, '--session', 'big', '--text', 'summarise SENTINEL_q', '--codex-bin', wrapper, '--json', '--context-out', contextOut], { env, cwd: codex.workdir, timeoutMs: 180_000 });
  expect(run.exitCode, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ session_id: 'big', prompt_message_id: 'msg6', answer_message_id: 'msg7' });

  const lines = readFileSync(stdinCopy, 'utf8').split('\n').filter(Boolean);
  for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(APP_SERVER_WS_LIMITS.frameBytes);
  const injects = lines.map((l) => JSON.parse(l)).filter((m) => m.method === 'thread/inject_items');
  expect(injects.length).toBeGreaterThanOrEqual(2);
  const context = JSON.parse(readFileSync(contextOut, 'utf8'));
  expect(context).toHaveLength(5);
  expect(injects.flatMap((m) => m.params.items)).toEqual(context);

  // The history is far above the model's window, so Codex compacts before the turn: its first
  // model request holds every message, whole and in order; the turn's request then has the prompt.
  const [first, ...rest] = server.modelRequests().map(requestText);
  const at = roles.map((_, i) => first!.indexOf(`MARK_${i} `));
  expect(at.every((x) => x >= 0)).toBe(true);
  expect([...at].sort((a, b) => a - b)).toEqual(at);
  for (const i of roles.keys()) expect(first).toContain(`END_${i}\\n<aboveturn id=\\"msg${i + 1}\\"/>`);
  expect(rest.at(-1)).toContain('summarise SENTINEL_q');
  expect(tableRows(db, "select count(*) as n from messages where session_id = 'big'")[0]!.n).toBe(7);
}, 300_000);
