import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { holdPerTest, type RecordedRequest } from '../../../../../test/support/fake-models/index.js';
import { tableRows } from '../support.js';
import { codexBox, killServes, requestText, startServeProcess } from './support.js';

// The real Codex TUI (`codex --remote`) driven through tmux on a private tmux server.
const TMUX = ['-L', `cordon-serve-tui-${process.pid}`];
const tmux = (...args: string[]) => spawnSync('tmux', [...TMUX, ...args], { encoding: 'utf8' });

const held = holdPerTest();
afterEach(async () => {
  tmux('kill-server');
  await killServes();
});

let context = (): string => '';

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${tmux('capture-pane', '-p', '-J').stdout}\n${context()}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

it('the real Codex TUI through pcodx serve: two turns, a compaction dropping the sentinel from the next request, then `codex resume --last` from the compacted context', async () => {
  const { box, server, codex, bin, db, env } = await codexBox(held, 'cordon-serve-tui-');
  // What the TUI itself writes after its first start: the model-migration notice was seen (it would
  // otherwise cover the input box at some point after start-up).
  appendFileSync(codex.userConfig, '\n[tui]\nscreen_reader_detection_done = true\n\n[notice.model_migrations]\n"gpt-5.5" = "gpt-6-sol"\n');
  // The default transport: the TUI connects over the serve's unix socket (`codex --remote unix://…`).
  const serve = await startServeProcess(['--codex-bin', bin, '--enable-pcodx-tools', '--session', 'tui'], env, codex.workdir);
  expect(serve.banner.connect).toBe(`codex --remote ${serve.listen}`);
  context = () => `serve log:\n${serve.stderr()}`;
  const wrapper = join(box.root, 'tui.sh');
  writeFileSync(wrapper, ['#!/bin/sh', ...Object.entries(env).map(([k, v]) => `export ${k}='${String(v).replace(/'/g, `'\\''`)}'`), `cd '${codex.workdir}'`, 'exec "$@"', ''].join('\n'));
  chmodSync(wrapper, 0o700);
  const screen = () => tmux('capture-pane', '-p', '-J').stdout;
  const rows = () => tableRows(db, 'select id, role, text from messages order by seq');
  const userRequests = () => server.modelRequests().filter((r) => !String(r.headers['x-codex-turn-metadata'] ?? '').includes('thread_title'));
  const texts = (r: RecordedRequest): string[] => (r.body?.input ?? []).flatMap((i: any) => (Array.isArray(i?.content) ? i.content : []).map((c: any) => String(c?.text ?? '')));
  const requestFor = (prompt: string) => userRequests().find((r) => texts(r).some((t) => t.includes(prompt)));
  const open = async (args: string[]) => {
    expect(tmux('new-session', '-d', '-x', '180', '-y', '50', wrapper, bin, '--remote', serve.listen, '--no-alt-screen', ...args).status).toBe(0);
    await until('the input box', () => /Ask Codex/.test(screen()));
  };
  const say = async (text: string, expectedRows: number) => {
    await until('the input box', () => /Ask Codex/.test(screen()));
    tmux('send-keys', '-l', text);
    await until('the typed text', () => screen().includes(text.slice(-30)));
    // The TUI treats keys that arrive in a burst as a paste, where Enter is a newline: press Enter
    // again (every ~3 s) until the model has been asked; an Enter on an empty box does nothing.
    let probes = 0;
    await until('the model request', () => requestFor(text) ?? (probes++ % 10 === 0 && void tmux('send-keys', 'Enter')));
    await until(`${expectedRows} ledger rows`, () => rows().length >= expectedRows);
  };

  await open([]);
  await say('please remember SENTINEL_tq4 for later', 2);
  const compact = JSON.stringify({ ranges: [{ from_message_id: 'msg1', to_message_id: 'msg2', summary: 'SUMMARY_tui: a code word was given' }] });
  await say(`now compact: CALL_TOOL partial_compact ${compact}`, 4);
  expect(tableRows(db, 'select id from compactions')).toEqual([{ id: 'cmp1' }]);
  await say('what now?', 6);
  const third = requestText(requestFor('what now?')!);
  expect(third).toContain('SUMMARY_tui: a code word was given');
  expect(third).not.toContain('SENTINEL_tq4');
  await until('the answer on screen', () => screen().includes('ECHO what now? SENTINEL_ABSENT'));
  expect(rows().map((r) => r.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);

  tmux('send-keys', 'C-c');
  tmux('send-keys', 'C-c');
  await until('the TUI to exit', () => tmux('has-session').status !== 0);

  await open(['resume', '--last', 'what do you remember?']);
  await until('the resumed turn', () => rows().length >= 8);
  const resumed = requestText(requestFor('what do you remember?')!);
  expect(resumed).toContain('SUMMARY_tui: a code word was given\\n<aboveturn id=\\"cmp1\\"/>');
  expect(resumed).toContain('<aboveturn id=\\"msg6\\"/>');
  expect(resumed).not.toContain('SENTINEL_tq4');
  await until('the resumed answer on screen', () => screen().includes('ECHO what do you remember? SENTINEL_ABSENT'));
  expect(serve.stderr()).toContain('method=thread/resume');
}, 300_000);
