import { expect, it } from 'vitest';
import WebSocket from 'ws';
import { waitFor } from '../../../../../test/support/wait.js';
import { tableRows } from '../support.js';
import { TestClient } from './fake-app-server.js';
import { codexBox, e2eServeSuite, startServeProcess, type CodexBox, type ServeProcess } from './support.js';

// A client of `cordon pcodx serve --enable-pcodx-tools` that does what the TUI never does, against
// the real pinned Codex app-server and a fake Responses server.

const { held, clients } = e2eServeSuite();

/** Waits until `check` holds (test/support/wait.ts). */
async function until(check: () => boolean, what: string): Promise<void> {
  await waitFor(check, { what, timeoutMs: 60_000 });
}

interface Started extends CodexBox {
  readonly serve: ServeProcess;
  readonly c: TestClient;
  readonly thread: string;
  rows(): string[];
}

/** A serve on the real app-server, an initialized client and a primary thread. */
async function started(prefix: string, session: string): Promise<Started> {
  const box = await codexBox(held, prefix);
  const serve = await startServeProcess(['--codex-bin', box.bin, '--enable-pcodx-tools', '--session', session], box.env, box.codex.workdir);
  const c = await TestClient.connect(`ws+unix:${serve.listen.replace(/^unix:\/\//, '')}:/`);
  clients.push(c);
  const init = await c.request('init', 'initialize', { clientInfo: { name: 'cordon-e2e', version: '0.0.0' }, capabilities: null });
  expect(init.error).toBeUndefined();
  c.send({ method: 'initialized' });
  const start = await c.request('start', 'thread/start', { cwd: box.codex.workdir, approvalPolicy: 'never' });
  expect(start.error).toBeUndefined();
  return { ...box, serve, c, thread: start.result.thread.id, rows: () => tableRows(box.db, `select text from messages where session_id = '${session}' order by seq`).map((r) => String(r.text)) };
}

const text = (t: string) => [{ type: 'text', text: t, text_elements: [] }];

it('a turn/start sent while a turn runs joins that turn (Codex answers with its id): the ledger keeps both prompts, the second as a steer of the turn', async () => {
  const s = await started('cordon-hostile-join-', 'join1');
  const first = await s.c.request('t1', 'turn/start', { threadId: s.thread, input: text('HOLD_MODEL first PROMPT_one') });
  expect(first.error).toBeUndefined();
  await until(() => s.server.held === 1, 'the held model request');
  const second = await s.c.request('t2', 'turn/start', { threadId: s.thread, input: text('second PROMPT_two') });
  expect(second.error).toBeUndefined();
  // What the real app-server does: no second turn, the input goes into the running one.
  expect(second.result.turn.id).toBe(first.result.turn.id);
  s.server.release();
  await s.c.next((m) => m.method === 'turn/completed' && m.params.turn.id === first.result.turn.id);
  await until(() => s.serve.stderr().includes('event=turn_ingested'), 'the turn to be ingested');
  expect(s.rows()).toEqual(['HOLD_MODEL first PROMPT_one', 'second PROMPT_two', expect.stringContaining('ECHO')]);
  expect(s.serve.stderr()).toContain('event=turn_input_joined');
}, 120_000);

it('a turn/start the app-server refuses leaves no turn in flight: a client that leaves right after has its upstream connection closed at once', async () => {
  const s = await started('cordon-hostile-refused-', 'refused1');
  const refused = await s.c.request('bad', 'turn/start', { threadId: s.thread, input: 'not-a-list' });
  expect(refused.error.code).toBe(-32600);
  s.c.close();
  await until(() => /event=client_closed connection=1/.test(s.serve.stderr()), 'the client to be gone');
  expect(s.serve.stderr()).toMatch(/event=client_closed connection=1 turns_in_flight=0/);
  await until(() => /event=upstream_closed connection=1/.test(s.serve.stderr()), 'the upstream connection to close');
  expect(s.rows()).toEqual([]);
}, 120_000);

it('a request whose id the app-server would never answer (1.5, 1e20, 2^53) gets -32600 at once and never reaches it; the connection goes on', async () => {
  const s = await started('cordon-hostile-ids-', 'ids1');
  const read = (id: string) => `{"id":${id},"method":"thread/read","params":{"threadId":"${s.thread}"}}`;
  for (const id of ['1.5', '100000000000000000000', '9007199254740993']) s.c.send(read(id));
  await until(() => s.c.frames.filter((m) => m.error?.code === -32600).length === 3, 'three refusals');
  for (const m of s.c.frames.filter((f) => f.error)) {
    expect(m.id).toBeNull();
    expect(m.error.message).toMatch(/id must be a string or an integer/);
  }
  expect(s.serve.stderr()).toMatch(/event=client_frame_refused connection=1 code=-32600/);
  const ok = await s.c.request(-7, 'thread/read', { threadId: s.thread });
  expect(ok.result.thread.id).toBe(s.thread);
}, 120_000);

it('a request sent in a binary frame (which the app-server ignores without a word) gets -32600 with its id at once; nothing is relayed and the connection goes on', async () => {
  const s = await started('cordon-hostile-binary-', 'binary1');
  const raw = new WebSocket(`ws+unix:${s.serve.listen.replace(/^unix:\/\//, '')}:/`);
  await new Promise((r) => raw.once('open', r));
  const got: any[] = [];
  raw.on('message', (d) => got.push(JSON.parse(d.toString())));
  const reply = (id: string) => until(() => got.some((m) => m.id === id && m.method === undefined), `the answer to ${id}`).then(() => got.find((m) => m.id === id && m.method === undefined));
  raw.send(JSON.stringify({ id: 'i', method: 'initialize', params: { clientInfo: { name: 'cordon-e2e', version: '0.0.0' } } }));
  expect((await reply('i')).error).toBeUndefined();
  raw.send(Buffer.from(JSON.stringify({ id: 'b', method: 'thread/read', params: { threadId: s.thread } })), { binary: true });
  const refused = await reply('b');
  expect(refused.error).toEqual({ code: -32600, message: expect.stringMatching(/binary frame/) });
  raw.send(Buffer.from('{"method":"initialized"}'), { binary: true });
  await until(() => got.some((m) => m.id === null && /binary frame/.test(m.error?.message)), 'the refusal of a binary notification');
  raw.send(JSON.stringify({ id: 't', method: 'thread/read', params: { threadId: s.thread } }));
  expect((await reply('t')).result.thread.id).toBe(s.thread);
  expect(s.serve.stderr()).toMatch(/event=client_frame_refused connection=2 code=-32600 reason="invalid request: a binary frame/);
  raw.close();
}, 120_000);

// A request the serve rewrites (initialize, a primary thread/start, a turn/start on a fresh
// thread) was parsed, then written again with JSON.stringify, which throws on an array nested
// 200,000 deep (JSON.parse takes it): the error ended in the log and the request was never
// answered nor relayed, so the client waited forever.
it('a request nested too deeply for the serve to rewrite gets -32600 with its id at once; nothing is relayed and the connection goes on', async () => {
  const s = await started('cordon-hostile-deep-', 'deep1');
  const raw = new WebSocket(`ws+unix:${s.serve.listen.replace(/^unix:\/\//, '')}:/`);
  await new Promise((r) => raw.once('open', r));
  const got: any[] = [];
  raw.on('message', (d) => got.push(JSON.parse(d.toString())));
  const reply = (id: string) => until(() => got.some((m) => m.id === id && m.method === undefined), `the answer to ${id}`).then(() => got.find((m) => m.id === id && m.method === undefined));
  const depth = 200_000;
  raw.send(`{"id":"deep","method":"initialize","params":{"clientInfo":{"name":"cordon-e2e","version":"0.0.0"},"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`);
  const refused = await reply('deep');
  expect(refused.error).toEqual({ code: -32600, message: expect.stringMatching(/^invalid request: nested too deeply/) });
  // Never relayed: the app-server still takes this connection's first initialize.
  raw.send(JSON.stringify({ id: 'i', method: 'initialize', params: { clientInfo: { name: 'cordon-e2e', version: '0.0.0' } } }));
  expect((await reply('i')).error).toBeUndefined();
  raw.send(JSON.stringify({ id: 't', method: 'thread/read', params: { threadId: s.thread } }));
  expect((await reply('t')).result.thread.id).toBe(s.thread);
  expect(s.serve.stderr()).toMatch(/event=client_frame_refused connection=2 code=-32600 reason="invalid request: nested too deeply/);
  raw.close();
}, 120_000);
