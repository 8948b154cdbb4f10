import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Ledger } from '../../../../../packages/host/src/ledger/index.js';
import { startServe, type RunningServe } from '../../../src/pcodx/serve/serve.js';
import { SessionState } from '../../../src/pcodx/serve/threads.js';
import { MAX_FRAME_BYTES } from '../../../src/pcodx/serve/frames.js';
import { PCODX_TOOLS } from '../../../src/pcodx/tools/definitions.js';
import { FakeAppServer, TestClient } from './fake-app-server.js';

// "The live thread sees what the ledger says" against the scripted app-server; the
// same behaviours with the real Codex are in e2e-live.test.ts.

let dir: string;
let db: string;
let fake: FakeAppServer;
let ledger: Ledger;
let serve: RunningServe | undefined;
let log: string[];
const clients: TestClient[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pcodx-serve-live-'));
  db = join(dir, 'l.sqlite3');
  fake = await FakeAppServer.start();
  // A short busy timeout so a held write lock fails the serve's writes quickly.
  ledger = await Ledger.open({ path: db, busyTimeoutMs: 200 });
  await ledger.resolveSession({ mode: 'create', id: 'S', cwd: dir });
  log = [];
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await serve?.close();
  serve = undefined;
  await fake.close();
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<RunningServe> {
  serve = await startServe({
    listen: 'ws://127.0.0.1:0',
    upstream: fake.url,
    launch: false,
    pcodx: { ledger, session: new SessionState('S') },
    log: (event, fields = {}) => log.push(`${event} ${JSON.stringify(fields)}`),
  });
  return serve;
}

async function client(): Promise<TestClient> {
  const c = await TestClient.connect(serve!.listenClientUrl, serve!.clientHeaders);
  clients.push(c);
  await c.request('init', 'initialize', { clientInfo: { name: 'codex_exec', version: '0.171.0' }, capabilities: null });
  c.send({ method: 'initialized' });
  return c;
}

let ids = 0;
const startThread = async (c: TestClient, params: Record<string, unknown> = {}) => (await c.request(`s${++ids}`, 'thread/start', { threadSource: 'user', ...params })).result.thread.id as string;
const turn = async (c: TestClient, threadId: string, text: string) => {
  const response = await c.request(`t${++ids}`, 'turn/start', { threadId, input: [{ type: 'text', text, text_elements: [] }] });
  return c.next((m) => m.method === 'turn/completed' && m.params.turn.id === response.result.turn.id);
};
const waitFor = async (check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
  expect(await check()).toBe(true);
};
/** The items injected into the upstream thread of the last fresh thread, as text. */
const lastInjected = () => JSON.stringify(fake.calls('thread/inject_items').at(-1)?.params.items ?? []);
const texts = async (session: string) => (await ledger.visible(session)).map((e) => `${e.role}:${e.text}`);

it('a compaction or uncompaction made by another process applies to the next turn of a connected client', async () => {
  await start();
  const c = await client();
  const thread = await startThread(c);
  await turn(c, thread, 'remember SENTINEL_x1');
  expect(fake.calls('thread/inject_items')).toHaveLength(0);
  // Another process (the CLI from another terminal) compacts: a connection of its own to the file.
  const other = await Ledger.open({ path: db });
  await other.compact('S', [{ from: 'msg1', to: 'msg2', summary: 'SUMMARY_cli' }]);
  await turn(c, thread, 'next');
  expect(fake.calls('thread/start').at(-1).params.ephemeral).toBe(true);
  expect(lastInjected()).toContain('SUMMARY_cli');
  expect(lastInjected()).not.toContain('SENTINEL_x1');
  // No ledger change: the turn after stays on that fresh thread.
  const starts = fake.calls('thread/start').length;
  await turn(c, thread, 'again');
  expect(fake.calls('thread/start')).toHaveLength(starts);
  // An uncompaction from elsewhere brings the text back on the next turn.
  await other.uncompact('S', 'cmp1');
  await turn(c, thread, 'and now');
  expect(fake.calls('thread/start')).toHaveLength(starts + 1);
  expect(lastInjected()).toContain('SENTINEL_x1');
  // A message recorded by another process is the ledger's too.
  await other.record('S', [{ role: 'user', text: 'NOTE_from_cli' }]);
  await turn(c, thread, 'last');
  expect(lastInjected()).toContain('NOTE_from_cli');
  await other.close();
});

it('a conversation started elsewhere and resumed gets a fresh thread with the pcodx tools; an empty session takes its turns', async () => {
  fake.resumeThread = {
    turns: [
      { id: 'turn-a', status: 'completed', items: [{ type: 'userMessage', id: 'u1', content: [{ type: 'text', text: 'OLD_question', text_elements: [] }] }, { type: 'agentMessage', id: 'a1', text: 'OLD_answer' }] },
      { id: 'turn-b', status: 'interrupted', items: [{ type: 'userMessage', id: 'u2', content: [{ type: 'text', text: 'CUT_question' }] }] },
    ],
  };
  await start();
  const c = await client();
  // As `codex exec` resumes: no turns in the response, so the serve reads them (thread/read includeTurns).
  const resumed = (await c.request('r', 'thread/resume', { threadId: 'thread-plain', excludeTurns: true })).result.thread.id;
  expect(fake.calls('thread/read').at(-1).params).toEqual({ threadId: 'thread-plain', includeTurns: true });
  expect(await texts('S')).toEqual(['user:OLD_question', 'assistant:OLD_answer']);
  await turn(c, resumed, 'hello');
  const fresh = fake.calls('thread/start').at(-1).params;
  expect(fresh.ephemeral).toBe(true);
  expect(fresh.dynamicTools.map((t: any) => t.name)).toEqual(expect.arrayContaining(Object.values(PCODX_TOOLS)));
  expect(fake.calls('turn/start').at(-1).params.threadId).not.toBe('thread-plain');
  expect(lastInjected()).toContain('OLD_answer');
  // Resumed again later (another connection): the session has entries, nothing is imported twice.
  const d = await client();
  await d.request('r2', 'thread/resume', { threadId: 'thread-plain' });
  expect((await ledger.visibleIds('S')).length).toBe(4);
  // Even in an empty session with nothing to import, a resumed thread goes fresh (its tools are fixed at start).
  const e = await client();
  await ledger.resolveSession({ mode: 'create', id: 'S2', cwd: dir });
  fake.resumeThread = {};
  await e.request('r3', 'thread/resume', { threadId: 'thread-other' });
  const before = fake.calls('thread/start').length;
  await turn(e, 'thread-other', 'hi');
  expect(fake.calls('thread/start')).toHaveLength(before + 1);
});

it('developer instructions given at thread/start are stored with the session and reach the fresh thread after a resume', async () => {
  await start();
  const c = await client();
  const thread = await startThread(c, { developerInstructions: 'INSTR_always answer in French' });
  // The upstream durable thread gets them with the pcodx block.
  expect(fake.calls('thread/start').at(-1).params.developerInstructions).toMatch(/^INSTR_always answer in French/);
  await turn(c, thread, 'bonjour');
  expect(fake.calls('thread/start')).toHaveLength(1);
  expect(await texts('S')).toEqual(['developer:INSTR_always answer in French', 'user:bonjour', 'assistant:answer: bonjour']);
  c.close();
  const d = await client();
  await d.request('r', 'thread/resume', { threadId: thread });
  await turn(d, thread, 'encore');
  expect(lastInjected()).toContain('"role":"developer","content":[{"type":"input_text","text":"INSTR_always answer in French');
  // Given again on another start, the same text is not stored twice.
  await startThread(d, { developerInstructions: 'INSTR_always answer in French' });
  expect((await texts('S')).filter((t) => t.startsWith('developer:'))).toHaveLength(1);
});

it('turn/steer messages are recorded as user messages of their turn, in order', async () => {
  await start();
  const c = await client();
  const thread = await startThread(c);
  const started = await c.request('t', 'turn/start', { threadId: thread, input: [{ type: 'text', text: 'HOLD first' }] });
  await waitFor(() => fake.heldTurns === 1);
  const turnId = started.result.turn.id;
  expect((await c.request('st1', 'turn/steer', { threadId: thread, expectedTurnId: turnId, input: [{ type: 'text', text: 'STEER_one' }] })).result).toBeDefined();
  expect((await c.request('st2', 'turn/steer', { threadId: thread, expectedTurnId: turnId, input: [{ type: 'text', text: 'STEER_two' }] })).result).toBeDefined();
  fake.release();
  await c.next((m) => m.method === 'turn/completed');
  await waitFor(async () => (await ledger.visibleIds('S')).length === 4);
  expect(await texts('S')).toEqual(['user:HOLD first', 'user:STEER_one', 'user:STEER_two', 'assistant:answer: HOLD first steered: STEER_one | STEER_two']);
  // A steer the app-server refuses (no turn running) is not recorded.
  expect((await c.request('st3', 'turn/steer', { threadId: thread, expectedTurnId: turnId, input: [{ type: 'text', text: 'STEER_late' }] })).error).toBeDefined();
  await turn(c, thread, 'after');
  expect((await texts('S')).join('\n')).not.toContain('STEER_late');
});

it('ingestion that fails is retried, then reported to the client (error notification, turn failed) and recorded before the next turn', async () => {
  await start();
  const c = await client();
  const thread = await startThread(c);
  await turn(c, thread, 'one');
  const locker = new Database(db);
  locker.exec('begin immediate');
  const done = await turn(c, thread, 'two LOST_unless_kept');
  expect(done.params.turn.status).toBe('failed');
  expect(done.params.turn.error.message).toMatch(/could not record this turn/);
  const error = c.frames.find((m) => m.method === 'error');
  expect(error.params).toMatchObject({ willRetry: false, threadId: thread, turnId: done.params.turn.id });
  expect(log.filter((l) => l.startsWith('ingest_failed')).length).toBeGreaterThanOrEqual(3);
  locker.exec('rollback');
  locker.close();
  await turn(c, thread, 'three');
  expect((await texts('S')).map((t) => t.split('\n')[0])).toEqual(['user:one', 'assistant:answer: one', 'user:two LOST_unless_kept', 'assistant:answer: two LOST_unless_kept', 'user:three', 'assistant:answer: three']);
  // A retry that succeeds within the attempts completes normally.
  const again = new Database(db);
  again.exec('begin immediate');
  setTimeout(() => {
    again.exec('rollback');
    again.close();
  }, 300);
  const ok = await turn(c, thread, 'four');
  expect(ok.params.turn.status).toBe('completed');
  expect((await ledger.visibleIds('S')).length).toBe(8);
});

it('thread/fork gives the fork a ledger session of its own; a compaction on the original never reaches the fork', async () => {
  await start();
  const c = await client();
  const original = await startThread(c);
  await turn(c, original, 'shared SENTINEL_base');
  const forked = (await c.request('f', 'thread/fork', { threadId: original })).result.thread.id;
  const forkSession = `S~fork-${forked}`;
  expect(await texts(forkSession)).toEqual(['user:shared SENTINEL_base', 'assistant:answer: shared SENTINEL_base']);
  await turn(c, forked, 'FORK_only');
  await turn(c, original, 'ORIG_only');
  await ledger.compact('S', [{ from: 'msg1', to: 'msg2', summary: 'SUMMARY_orig' }]);
  await turn(c, original, 'orig again');
  expect(lastInjected()).toContain('SUMMARY_orig');
  expect(lastInjected()).not.toContain('FORK_only');
  // The fork's own ledger did not change: its next turn stays on its thread, reseeded with nothing of the original.
  const starts = fake.calls('thread/start').length;
  await turn(c, forked, 'fork again');
  expect(fake.calls('thread/start')).toHaveLength(starts);
  const forkTexts = (await texts(forkSession)).join('\n');
  expect(forkTexts).toContain('FORK_only');
  expect(forkTexts).not.toContain('ORIG_only');
  expect(forkTexts).not.toContain('SUMMARY_orig');
  expect((await texts('S')).join('\n')).not.toContain('FORK_only');
  // A pcodx tool call on the fork compacts the fork's session only.
  const call = JSON.stringify({ ranges: [{ from_message_id: 'msg3', to_message_id: 'msg4', summary: 'SUMMARY_fork' }] });
  await turn(c, forked, `TOOL ${PCODX_TOOLS.compact} ${call}`);
  expect((await ledger.compactions(forkSession)).map((k) => k.summary)).toEqual(['SUMMARY_fork']);
  expect((await ledger.compactions('S')).map((k) => k.summary)).toEqual(['SUMMARY_orig']);
  // Resumed on a later connection, the fork finds its own session again.
  const d = await client();
  await d.request('r', 'thread/resume', { threadId: forked });
  await turn(d, forked, 'fork resumed');
  expect(lastInjected()).toContain('SUMMARY_fork');
  expect(lastInjected()).toContain('SENTINEL_base');
  expect(lastInjected()).not.toContain('SUMMARY_orig');
  expect(lastInjected()).not.toContain('ORIG_only');
});

it('relays a thread/resume response above 64 MiB (frames up to 128 MiB to the client); client messages reach the upstream in frames of at most 16 MiB, and up to 64 MiB', async () => {
  expect(MAX_FRAME_BYTES).toBe(128 * 1024 * 1024);
  // A history of 70 MiB in one response, as a long saved session gives.
  const big = 'x'.repeat(1024 * 1024);
  fake.resumeThread = { turns: Array.from({ length: 70 }, (_, i) => ({ id: `t${i}`, status: 'completed', items: [{ type: 'agentMessage', id: `a${i}`, text: big }] })) };
  await start();
  const socketClient = await TestClient.connect(serve!.listenClientUrl, serve!.clientHeaders);
  clients.push(socketClient);
  const resumed = await socketClient.request('r', 'thread/resume', { threadId: 'thread-big' });
  expect(resumed.result.thread.turns).toHaveLength(70);
  expect(socketClient.raw.at(-1)!.length).toBeGreaterThan(64 * 1024 * 1024);
  // A client message of 20 MiB reaches the upstream whole (sent as frames of at most 16 MiB, what
  // the Codex app-server reads; e2e-large-resume.test.ts shows it with the real one).
  const thread = await (async () => {
    await socketClient.request('i', 'initialize', {});
    return (await socketClient.request('s', 'thread/start', {})).result.thread.id;
  })();
  const text = 'y'.repeat(20 * 1024 * 1024);
  const response = await socketClient.request('big-turn', 'turn/start', { threadId: thread, input: [{ type: 'text', text }] });
  expect(response.result.turn.id).toBeDefined();
  expect(fake.received.find((r) => r.message.id === 'big-turn')!.message.params.input[0].text).toBe(text);
  // One above 64 MiB (more than the app-server reads in a message) is answered by the proxy and
  // never sent; the connection stays.
  const tooLarge = await socketClient.request('huge-turn', 'turn/start', { threadId: thread, input: [{ type: 'text', text: 'z'.repeat(65 * 1024 * 1024) }] });
  expect(tooLarge.error).toMatchObject({ code: -32600, message: expect.stringContaining('request too large') });
  expect(fake.received.some((r) => r.message.id === 'huge-turn')).toBe(false);
  expect((await socketClient.request('after', 'thread/start', {})).result.thread.id).toBeDefined();
}, 60_000);

it('an approval the app-server asks for after the client left is answered with an error, and the turn is still ingested', async () => {
  await start();
  const c = await client();
  const thread = await startThread(c);
  await c.request('t-approve', 'turn/start', { threadId: thread, input: [{ type: 'text', text: 'HOLD then APPROVE' }] });
  await waitFor(() => fake.heldTurns === 1);
  c.close();
  await waitFor(() => log.some((l) => l.startsWith('client_closed') && l.includes('"turns_in_flight":1')));
  fake.release();
  await waitFor(() => fake.closedConnections.includes(1));
  const answer = fake.received.find((r) => r.message.id === 0 && r.message.method === undefined)!.message;
  expect(answer.error.message).toContain('disconnected');
  expect((await texts('S')).map((t) => t.split('\n')[0])).toEqual(['user:HOLD then APPROVE', 'assistant:decision: undefined']);
});

it('turns still unsaved when the serve stops are recorded then if the ledger is free again', async () => {
  await start();
  const c = await client();
  const thread = await startThread(c);
  const locker = new Database(db);
  locker.exec('begin immediate');
  const done = await turn(c, thread, 'SAVED_at_stop');
  expect(done.params.turn.status).toBe('failed');
  locker.exec('rollback');
  locker.close();
  await serve!.close();
  serve = undefined;
  expect((await texts('S')).map((t) => t.split('\n')[0])).toEqual(['user:SAVED_at_stop', 'assistant:answer: SAVED_at_stop']);
  expect(log.some((l) => l.startsWith('unsaved_turns_lost'))).toBe(false);
});
