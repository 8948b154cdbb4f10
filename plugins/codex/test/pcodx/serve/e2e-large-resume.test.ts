import { chmodSync, closeSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runProcess } from '../../../../../test/support/cli.js';
import { holdPerTest, type RecordedRequest } from '../../../../../test/support/fake-models/index.js';
import { privateTmux } from '../../../../../test/support/tmux.js';
import { waitFor } from '../../../../../test/support/wait.js';
import { TestClient } from './fake-app-server.js';
import { tableRows } from '../support.js';
import { codexBox, killServes, startServeProcess } from './support.js';

// openai/codex#19837: `codex --remote … resume` of a long saved session failed once one response
// frame of the history passed the websocket limit (Codex raised its client's to 128 MiB in
// openai/codex#19920). Here the real Codex 0.171 (TUI and app-server) resumes a saved session whose
// history is about 71.5 MiB through `cordon pcodx serve` on its default transport, transparent and
// with `--enable-pcodx-tools`; what the serve sends the app-server stays within that reader's limits
// (frames of 16 MiB, messages of 64 MiB; src/pcodx/serve/fragments.ts).

const held = holdPerTest();
const tmux = privateTmux('cordon-serve-large');
const clients: TestClient[] = [];
// Registered after holdPerTest, so it runs first: the TUI and the serve go before the fake closes.
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  tmux.kill();
  await killServes();
});

const MIB = 1024 * 1024;
/** Bytes of each long answer: three of them make a history above 64 MiB (about 71.5 MiB); Codex compacts between them, so no request of the build-up holds more than one. */
const ANSWER_BYTES = 25_000_000;

/** The first `bytes` bytes of a file (the captured frames of a long history are tens of MB). */
function head(path: string, bytes: number): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** One frame `PCODX_WS_FIXTURE_DIR` captured: its file, direction and size in bytes (the file holds the frame and a newline). */
interface Captured {
  readonly path: string;
  readonly direction: string;
  readonly bytes: number;
}

function captured(root: string): Captured[] {
  const frames: Captured[] = [];
  for (const run of readdirSync(root)) {
    for (const connection of readdirSync(join(root, run))) {
      for (const name of readdirSync(join(root, run, connection)).sort()) {
        const path = join(root, run, connection, name);
        frames.push({ path, direction: name.slice(7, 10), bytes: statSync(path).size - 1 });
      }
    }
  }
  return frames;
}

/**
 * A saved session made by the real codex (no proxy): three turns, each answered with
 * {@link ANSWER_BYTES} of text. Codex compacts the history before a turn once the reported usage
 * passes the limit, so each model request stays small while the thread keeps every answer for a
 * resume to show. The TUI settings are what it writes after its first start (the model-migration
 * notice would cover the input box).
 */
async function savedLongSession(prefix: string) {
  const box = await codexBox(held, prefix);
  const { server, codex, bin, env } = box;
  const config = readFileSync(codex.userConfig, 'utf8');
  writeFileSync(codex.userConfig, `model_auto_compact_token_limit = 200000\n${config}\n[tui]\nscreen_reader_detection_done = true\n\n[notice.model_migrations]\n"gpt-5.5" = "gpt-6-sol"\n`);
  let thread = '';
  for (const resume of [[], ['resume', '--last'], ['resume', '--last']]) {
    const run = await runProcess([bin, 'exec', '--skip-git-repo-check', '--json', ...resume, `LONG_REPLY ${ANSWER_BYTES}`], { env, cwd: codex.workdir, timeoutMs: 120_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    thread = JSON.parse(run.stdout.split('\n')[0]!).thread_id;
  }
  expect(thread).toMatch(/^[0-9a-f-]{36}$/);
  // Codex compacted before the second and the third turn: each of those requests held the answer before.
  expect(server.modelRequests().filter((r) => JSON.stringify(r.body?.input ?? []).length > ANSWER_BYTES)).toHaveLength(2);
  return { ...box, thread };
}

/** Every text of a model request's input items, in order. */
const texts = (r: RecordedRequest): string[] => (r.body?.input ?? []).flatMap((i: any) => (Array.isArray(i?.content) ? i.content : []).map((c: any) => String(c?.text ?? '')));

it('the real Codex TUI resumes through pcodx serve a saved session whose history comes back in one frame above 64 MiB, and the turn after the resume completes', async () => {
  const { box, server, codex, bin, env, thread } = await savedLongSession('cordon-serve-large-');
  const frames = join(box.root, 'frames');
  const serve = await startServeProcess(['--codex-bin', bin], { ...env, PCODX_WS_FIXTURE_DIR: frames }, codex.workdir);
  expect(serve.listen).toMatch(/^unix:\/\/\/.*\/serve\.sock$/);

  // The TUI, as a user runs it: `codex --remote <serve> resume <thread> <prompt>`.
  const wrapper = join(box.root, 'tui.sh');
  writeFileSync(wrapper, ['#!/bin/sh', ...Object.entries(env).map(([k, v]) => `export ${k}='${String(v).replace(/'/g, `'\\''`)}'`), `cd '${codex.workdir}'`, 'exec "$@"', ''].join('\n'));
  chmodSync(wrapper, 0o700);
  const prompt = 'what comes after the resume?';
  expect(tmux.run(['new-session', '-d', '-s', 'tui', '-x', '180', '-y', '50', wrapper, bin, '--remote', serve.listen, '--no-alt-screen', 'resume', thread, prompt]).status).toBe(0);
  const state = () => `screen:\n${tmux.screen('tui')}\nserve log:\n${serve.stderr()}`;
  await waitFor(() => server.modelRequests().some((r) => texts(r).includes(prompt)), { what: () => `the resumed turn's model request; ${state()}`, timeoutMs: 120_000, intervalMs: 300 });
  await waitFor(() => tmux.screen('tui').includes(`ECHO ${prompt} SENTINEL_ABSENT`), { what: () => `the answer on the TUI; ${state()}`, timeoutMs: 60_000, intervalMs: 300 });

  // What the proxy relayed: Codex 0.171's TUI resumes with `excludeTurns: true` and then asks for
  // the history with `thread/items/list`, whose one response holds all of it.
  const tui = captured(frames);
  const requests = tui.filter((f) => f.direction === 'c2p').map((f) => JSON.parse(readFileSync(f.path, 'utf8')));
  const resume = requests.find((m) => m.method === 'thread/resume');
  expect(resume?.params).toMatchObject({ threadId: thread, excludeTurns: true });
  const largest = tui.filter((f) => f.direction === 'p2c').sort((a, b) => b.bytes - a.bytes)[0]!;
  expect(largest.bytes).toBeGreaterThan(64 * MIB);
  expect(largest.bytes).toBeLessThan(128 * MIB);
  const largestId = JSON.parse(`${/^\{"id":("[^"]*"|\d+)/.exec(head(largest.path, 200))![1]}`);
  expect(requests.find((m) => m.id === largestId)).toMatchObject({ method: 'thread/items/list', params: { threadId: thread } });

  // A client that resumes without `excludeTurns` (Codex's full-history resume, still served by the
  // 0.171 app-server) gets the whole history in the `thread/resume` response itself, then a turn.
  const older = await TestClient.connect(`ws+unix:${serve.listen.slice('unix://'.length)}:/`);
  clients.push(older);
  expect((await older.request('init', 'initialize', { clientInfo: { name: 'cordon-e2e', version: '0.0.0' }, capabilities: null })).error).toBeUndefined();
  older.send({ method: 'initialized' });
  const resumed = await older.request('resume', 'thread/resume', { threadId: thread });
  expect(resumed.error).toBeUndefined();
  const frame = older.raw.find((raw) => raw.startsWith('{"id":"resume"'))!;
  expect(Buffer.byteLength(frame)).toBeGreaterThan(64 * MIB);
  const answers = resumed.result.thread.turns.flatMap((t: any) => t.items).filter((i: any) => i.type === 'agentMessage' && i.text.length === ANSWER_BYTES);
  expect(answers).toHaveLength(3);
  const started = await older.request('turn', 'turn/start', { threadId: thread, input: [{ type: 'text', text: 'and after the full resume?' }] });
  expect(started.error).toBeUndefined();
  const completed = await older.next((m) => m.method === 'turn/completed' && m.params?.turn?.id === started.result.turn.id);
  expect(completed.params.turn.status).toBe('completed');
  const said = older.frames.filter((m) => m.method === 'item/completed' && m.params.item.type === 'agentMessage').map((m) => m.params.item.text);
  expect(said).toContain('ECHO and after the full resume? SENTINEL_ABSENT');

  // Client messages: above 16 MiB (one frame the app-server reads) the serve sends them in
  // fragments, so the app-server reads the request and answers it (here with its own limit on one
  // input, 1 MiB characters); above 64 MiB (one message it reads) the serve answers it itself.
  const paste = `PASTE_${'0123456789abcdef'.repeat(1.25 * MIB)}`;
  const pasted = await older.request('paste', 'turn/start', { threadId: thread, input: [{ type: 'text', text: paste }] });
  expect(pasted.error).toMatchObject({ code: -32602, data: { input_error_code: 'input_too_large', actual_chars: paste.length } });
  const tooLarge = await older.request('too-large', 'turn/start', { threadId: thread, input: [{ type: 'text', text: 'x'.repeat(65 * MIB) }] });
  expect(tooLarge.error).toMatchObject({ code: -32600, message: expect.stringContaining('request too large') });

  // No connection was closed for its size, and the serve is still up.
  expect(older.closeCode).toBeUndefined();
  expect(tmux.screen('tui')).not.toMatch(/disconnected|payload/i);
  expect(serve.stderr()).not.toMatch(/client_closed|upstream_closed|client_error|upstream_error/);
  expect(await serve.stop()).toBe(0);
}, 300_000);

it('through `pcodx serve --enable-pcodx-tools`, `codex exec --remote … resume` of the same long session: the history read for the ledger is one frame above 64 MiB, the fresh thread gets it in frames the app-server reads, and the turn completes', async () => {
  const { server, codex, bin, env, db, thread } = await savedLongSession('cordon-serve-large-pcodx-');
  const serve = await startServeProcess(['--codex-bin', bin, '--enable-pcodx-tools', '--session', 'long'], env, codex.workdir);
  const before = server.modelRequests().length;
  const prompt = 'what comes after the pcodx resume?';
  const run = await runProcess([bin, 'exec', '--remote', serve.listen, '--skip-git-repo-check', '--json', 'resume', thread, prompt], { env, cwd: codex.workdir, timeoutMs: 180_000 });
  expect(run.exitCode, `${run.stderr}\nserve log:\n${serve.stderr()}`).toBe(0);
  expect(run.stdout).toContain(`ECHO ${prompt}`);

  // `exec` resumes with `excludeTurns: true`, so the serve read the history itself (`thread/read`,
  // one response of about 75 MB) and recorded it: three prompts and three long answers.
  expect(serve.stderr()).toMatch(/event=thread_mapped .*method=thread\/resume .*imported_messages=6/);
  const rows = tableRows(db, 'select role, length(text) as bytes from messages order by seq');
  expect(rows.filter((r) => Number(r.bytes) >= ANSWER_BYTES).map((r) => r.role)).toEqual(['assistant', 'assistant', 'assistant']);
  // The turn ran on a fresh thread seeded with all of it (six items, 75 MB, in inject calls the
  // app-server could read): Codex sent that history, in order, to be compacted (it passes the
  // configured limit), then the turn's own request.
  // Six calls: each long answer alone (in two frames of at most 16 MiB), each prompt in a call of its own between them.
  expect(serve.stderr()).toMatch(/event=fresh_thread .*injected_items=6 .*inject_calls=6/);
  expect(Number(/injected_json_bytes=(\d+)/.exec(serve.stderr())![1])).toBeGreaterThan(64 * MIB);
  const requests = server.modelRequests().slice(before);
  const seeded = requests.find((r) => texts(r).some((t) => t.length >= ANSWER_BYTES))!;
  expect(texts(seeded).filter((t) => t.length >= ANSWER_BYTES).map((t) => t.slice(0, t.indexOf(' ')))).toEqual(['LONG_1', 'LONG_3', 'LONG_5']);
  expect(requests.indexOf(seeded)).toBeLessThan(requests.findIndex((r) => texts(r).includes(prompt)));
  expect(serve.stderr()).toMatch(/event=turn_ingested/);
  // The upstream connection went only after the client had (exec exits when its turn is done;
  // the serve notices the closed socket and logs it a moment later).
  await waitFor(() => serve.stderr().includes('event=client_closed'), { what: () => `the serve to log the client's close; log:\n${serve.stderr().slice(-2000)}`, timeoutMs: 60_000, intervalMs: 100 });
  const log = serve.stderr();
  expect(log).not.toMatch(/fresh_thread_failed|upstream_error|ingest_failed/);
  const clientLeft = log.indexOf('event=client_closed');
  expect(clientLeft).toBeGreaterThan(0);
  expect(log.slice(0, clientLeft)).not.toContain('upstream_closed');
  expect(await serve.stop()).toBe(0);
}, 300_000);
