import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT, runProcess } from '../../../../../test/support/cli.js';
import { holdPerTest } from '../../../../../test/support/fake-models/index.js';
import { pcodx, tableRows } from '../support.js';
import { codexBox, requestText } from './support.js';

const held = holdPerTest();
const MODEL_TURN_BIN = join(REPO_ROOT, 'plugins/codex/bin/pcodx-model-turn.js');
const CORDON = join(REPO_ROOT, 'packages/host/bin/run.cjs');
const PROMPT = 'what came before? \u202e ##[error] x';

it('pcodx-model-turn runs one turn on the real codex app-server over a fresh thread seeded with the render, records it and appends one private usage line', async () => {
  const { box, server, codex, bin, db, env: base } = await codexBox(held, 'cordon-model-turn-');
  const env = { ...base, CORDON_BIN: CORDON };
  const p = (args: string[]) => pcodx(box, db, args, { env, cwd: codex.workdir });
  expect((await p(['record', '--session', 'mt', '--cwd', codex.workdir, '--role', 'user', '--text', 'old question SENTINEL_mt1'])).exitCode).toBe(0);
  expect((await p(['record', '--session', 'mt', '--role', 'assistant', '--text', 'old answer'])).exitCode).toBe(0);
  expect((await p(['compact', '--session', 'mt', '--from', 'msg1', '--to', 'msg2', '--summary', 'SUMMARY_mt: an old exchange'])).exitCode).toBe(0);

  const contextOut = join(box.root, 'context.json');
  const run = await runProcess([process.execPath, MODEL_TURN_BIN, '--session', 'mt', '--text', PROMPT, '--codex-bin', bin, '--json', '--context-out', contextOut], { env, cwd: codex.workdir, timeoutMs: 90_000 });
  expect(run.exitCode, run.stderr).toBe(0);
  // The answer (the fake model echoes the prompt) is the model's text: --json writes what would
  // act on a terminal or a CI log as escapes, which parse back to the same text.
  expect(run.stdout).not.toMatch(/\u202e|##\[/);
  expect(run.stdout).toContain('\\u202e \\u0023#[error]');
  const out = JSON.parse(run.stdout);
  expect(out.answer).toContain(PROMPT);
  expect(out).toMatchObject({ session_id: 'mt', prompt_message_id: 'msg3', answer_message_id: 'msg4' });
  expect(out.answer).toContain('SENTINEL_ABSENT');

  const request = requestText(server.modelRequests().at(-1)!);
  expect(request).toContain('SUMMARY_mt: an old exchange\\n<aboveturn id=\\"cmp1\\"/>');
  expect(request).not.toContain('SENTINEL_mt1');
  expect(JSON.parse(readFileSync(contextOut, 'utf8'))).toEqual([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'SUMMARY_mt: an old exchange\n<aboveturn id="cmp1"/>' }] }]);
  expect(statSync(contextOut).mode & 0o777).toBe(0o600);

  const rows = tableRows(db, 'select id, role, text, source from messages order by seq');
  expect(rows.slice(2).map((r) => [r.id, r.role])).toEqual([['msg3', 'user'], ['msg4', 'assistant']]);
  expect(rows[2]!.text).toBe(PROMPT);
  expect(String(rows[2]!.source)).toMatch(/^codex-app-server:[0-9a-f-]{36}:.+$/);

  const usagePath = join(box.root, 'pcodx.usage.jsonl');
  expect(out.usage_log).toBe(usagePath);
  expect(statSync(usagePath).mode & 0o777).toBe(0o600);
  const lines = readFileSync(usagePath, 'utf8').split('\n').filter(Boolean);
  expect(lines).toHaveLength(1);
  const line = JSON.parse(lines[0]!);
  const correlation = tableRows(db, "select usage_correlation_id from sessions where id = 'mt'")[0]!.usage_correlation_id;
  expect(line).toEqual({
    schema_version: 1,
    event: 'model_turn_completed',
    recorded_at_unix_ms: expect.any(Number),
    pcodx_version: '0.1.0',
    pcodx_session_correlation_id: correlation,
    codex_version: '0.171.0',
    compaction: { applied: true, n_active_ranges: 1, n_source_messages_replaced: 2 },
    context: { strategy: 'fresh_ephemeral_thread_plus_thread/inject_items', kv_cache_status: 'fresh_app_server_thread; active_thread_kv_reuse_not_claimed', n_injected_items: 1, injected_json_bytes: Buffer.byteLength(JSON.stringify(JSON.parse(readFileSync(contextOut, 'utf8')))) },
    usage: {
      scope: 'tokenUsage.last',
      input_tokens: expect.any(Number),
      cached_input_tokens: 40,
      uncached_input_tokens: line.usage.input_tokens - 40,
      cache_write_input_tokens: 0,
      output_tokens: 7,
      reasoning_output_tokens: 2,
      total_tokens: expect.any(Number),
      model_context_window_tokens: expect.any(Number),
    },
  });
  expect(line.usage.input_tokens).toBeGreaterThan(100);
  // No conversation text, session name, thread ids or paths in the line.
  for (const secret of ['mt"', 'what came before', 'SUMMARY', box.root, rows[2]!.source as string]) expect(lines[0]).not.toContain(secret);

  // A usage log open to the group is refused before any turn runs.
  chmodSync(usagePath, 0o640);
  const before = server.modelRequests().length;
  const refused = await runProcess([process.execPath, MODEL_TURN_BIN, '--session', 'mt', '--text', 'again', '--codex-bin', bin], { env, cwd: codex.workdir, timeoutMs: 90_000 });
  expect(refused.exitCode).toBe(1);
  expect(refused.stderr).toContain('open to group or others');
  expect(server.modelRequests().length).toBe(before);
  expect(tableRows(db, 'select count(*) as n from messages')[0]!.n).toBe(4);

  // The plain output: answer on stdout, ids on stderr; a second line appended.
  chmodSync(usagePath, 0o600);
  const plain = await runProcess([process.execPath, MODEL_TURN_BIN, '--session', 'mt', '--text', 'and now?', '--codex-bin', bin], { env, cwd: codex.workdir, timeoutMs: 90_000 });
  expect(plain.exitCode, plain.stderr).toBe(0);
  expect(plain.stdout).toContain('ECHO and now?');
  expect(plain.stderr).toContain('prompt_message_id=msg5\nanswer_message_id=msg6\n');
  expect(readFileSync(usagePath, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
}, 240_000);
