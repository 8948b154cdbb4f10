import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { createServer as createHttpServer } from 'node:http';
import { Ledger } from '../../../../../packages/host/src/ledger/index.js';
import { startServe, type RunningServe } from '../../../src/pcodx/serve/serve.js';
import { SessionState } from '../../../src/pcodx/serve/threads.js';
import { PCODX_TOOLS } from '../../../src/pcodx/tools/definitions.js';
import { FakeAppServer, TestClient } from './fake-app-server.js';
import { waitFor as waitForCondition } from '../../../../../test/support/wait.js';

let dir: string;
let fake: FakeAppServer;
let ledger: Ledger;
let serve: RunningServe | undefined;
let log: string[];
const clients: TestClient[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pcodx-serve-proto-'));
  fake = await FakeAppServer.start();
  ledger = await Ledger.open({ path: join(dir, 'l.sqlite3') });
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

async function start(pcodx: boolean, extra: Partial<Parameters<typeof startServe>[0]> = {}): Promise<RunningServe> {
  serve = await startServe({
    ...extra,
    listen: 'ws://127.0.0.1:0',
    upstream: fake.url,
    launch: false,
    pcodx: pcodx ? { ledger, session: new SessionState('S') } : undefined,
    log: (event, fields = {}) => log.push(`${event} ${JSON.stringify(fields)}`),
  });
  return serve;
}

async function client(): Promise<TestClient> {
  const c = await TestClient.connect(serve!.listenClientUrl, serve!.clientHeaders);
  clients.push(c);
  return c;
}

/** initialize + a primary thread/start; returns the client's thread id. */
async function primaryThread(c: TestClient, tag: string): Promise<string> {
  await c.request(`init-${tag}`, 'initialize', { clientInfo: { name: 'codex-tui', version: '0.171.0' }, capabilities: null });
  c.send({ method: 'initialized' });
  const started = await c.request(`start-${tag}`, 'thread/start', { threadSource: 'user', ephemeral: false, dynamicTools: [{ type: 'namespace', name: 'codex_tui', tools: [] }] });
  return started.result.thread.id;
}

const turn = async (c: TestClient, id: string | number, threadId: string, text: string) => {
  const response = await c.request(id, 'turn/start', { threadId, input: [{ type: 'text', text, text_elements: [] }] });
  const done = await c.next((m) => m.method === 'turn/completed' && m.params.turn.id === response.result.turn.id);
  return { response, done };
};

const waitFor = (check: () => boolean): Promise<true> => waitForCondition(() => check(), { what: check.toString() });

describe('transparent relay', () => {
  it('passes initialize and thread/start unchanged and relays answers and notifications', async () => {
    await start(false);
    const c = await client();
    const params = { clientInfo: { name: 'codex_exec', version: '0.171.0' }, capabilities: null };
    await c.request('initialize', 'initialize', params);
    expect(fake.calls('initialize')[0].params).toEqual(params);
    const started = await c.request(1, 'thread/start', { cwd: null });
    expect(fake.calls('thread/start')[0].params).toEqual({ cwd: null });
    const { done } = await turn(c, 2, started.result.thread.id, 'hello');
    expect(done.params.threadId).toBe(started.result.thread.id);
    expect(c.frames.some((m) => m.method === 'item/completed' && m.params.item.text === 'answer: hello')).toBe(true);
  });

  it('relays an unknown method to the upstream and its -32601 back', async () => {
    await start(false);
    const c = await client();
    const answer = await c.request(7, 'no/such/method', {});
    expect(answer.error).toEqual({ code: -32601, message: 'unknown method no/such/method' });
  });
});

describe('id namespaces', () => {
  it('keeps client ids, maps server request ids back, refuses reserved and duplicate ids and drops replies to unknown server requests', async () => {
    await start(true);
    const c = await client();
    const threadId = await primaryThread(c, 'a');
    // Client ids 1 and "1" are different requests; both are pending at once.
    c.send({ id: 1, method: 'thread/read', params: { threadId } });
    c.send({ id: '1', method: 'thread/read', params: { threadId } });
    const [n, s] = await Promise.all([c.next((m) => m.id === 1 && !m.method), c.next((m) => m.id === '1' && !m.method)]);
    expect([n.result.thread.id, s.result.thread.id]).toEqual([threadId, threadId]);

    const reserved = await c.request('pcodx:1', 'thread/read', { threadId });
    expect(reserved.error.code).toBe(-32600);
    expect(reserved.error.message).toContain('reserved');
    expect(fake.received.some((r) => r.message.id === 'pcodx:1' && r.message.method === 'thread/read')).toBe(false);

    // A server request (id 0 on this connection) reaches the client with the upstream's id; the reply goes back.
    c.send({ id: 'approve-turn', method: 'turn/start', params: { threadId, input: [{ type: 'text', text: 'APPROVE ls' }] } });
    const approval = await c.next((m) => m.method === 'item/commandExecution/requestApproval');
    expect(approval.id).toBe(0);
    // A reply to an id the upstream never asked is dropped, not forwarded.
    c.send({ id: 99, result: { decision: 'accept' } });
    c.send({ id: 0, result: { decision: 'decline' } });
    const done = await c.next((m) => m.method === 'item/completed' && m.params.item.type === 'agentMessage' && /decision/.test(m.params.item.text));
    expect(done.params.item.text).toBe('decision: decline');
    expect(fake.received.filter((r) => r.message.method === undefined && r.message.id === 99)).toEqual([]);
    expect(log.some((l) => l.startsWith('client_response_dropped'))).toBe(true);

    // A duplicate of a pending id is refused (HANG keeps the first pending).
    c.send({ id: 'dup', method: 'turn/start', params: { threadId, input: [{ type: 'text', text: 'HANG' }] } });
    await c.next((m) => m.id === 'dup');
    c.send({ id: 'dup2', method: 'thread/read', params: { threadId } });
    c.send({ id: 'dup2', method: 'thread/read', params: { threadId } });
    const refusal = await c.next((m) => m.id === 'dup2' && m.error);
    expect(refusal.error.message).toContain('already pending');
  });

  it('gives its own upstream requests pcodx: ids and never shows their answers to the client', async () => {
    await start(true);
    const c = await client();
    const threadId = await primaryThread(c, 'b');
    await turn(c, 10, threadId, 'first SENTINEL_x');
    const args = JSON.stringify({ ranges: [{ from_message_id: 'msg1', to_message_id: 'msg2', summary: 'sum' }] });
    await turn(c, 11, threadId, `TOOL partial_compact ${args}`);
    await turn(c, 12, threadId, 'after');
    const proxyIds = fake.received.filter((r) => typeof r.message.id === 'string' && r.message.id.startsWith('pcodx:')).map((r) => r.message.method);
    expect(proxyIds).toEqual(['thread/start', 'thread/inject_items']);
    expect(c.frames.some((m) => typeof m.id === 'string' && m.id.startsWith('pcodx:'))).toBe(false);
  });
});

describe('pcodx tools and thread rewriting', () => {
  it('opts into experimentalApi, appends the tools to the primary thread only, answers tool calls from the ledger, routes the next turn to a fresh seeded thread and maps ids back', async () => {
    await start(true);
    const c = await client();
    const threadId = await primaryThread(c, 'c');
    expect(fake.calls('initialize')[0].params.capabilities).toEqual({ experimentalApi: true });
    const start0 = fake.calls('thread/start')[0].params;
    expect(start0.dynamicTools.map((t: any) => t.name)).toEqual(['codex_tui', PCODX_TOOLS.instructions, PCODX_TOOLS.messageIds, PCODX_TOOLS.compact]);
    expect(start0.developerInstructions).toContain('PCODX partial compaction');

    // The title thread (ephemeral, threadSource thread_title) is left alone.
    const title = await c.request('title', 'thread/start', { ephemeral: true, threadSource: 'thread_title', dynamicTools: [] });
    expect(fake.calls('thread/start')[1].params).toEqual({ ephemeral: true, threadSource: 'thread_title', dynamicTools: [] });
    await turn(c, 'title-turn', title.result.thread.id, 'make a title');

    await turn(c, 20, threadId, 'remember SENTINEL_q');
    const ids = await turn(c, 21, threadId, `TOOL ${PCODX_TOOLS.messageIds} {}`);
    expect(c.frames.some((m) => m.method === 'item/tool/call')).toBe(false);
    expect(JSON.stringify(c.frames)).toContain('msg1, msg2');
    void ids;
    const args = JSON.stringify({ ranges: [{ from_message_id: 'msg1', to_message_id: 'msg2', summary: 'SUMMARY_q' }] });
    await turn(c, 22, threadId, `TOOL partial_compact ${args}`);
    expect((await ledger.compactions('S')).map((x) => x.id)).toEqual(['cmp1']);
    // Each completed ordinary turn became one user and one assistant row (title turn excluded).
    const rows = await ledger.visible('S');
    expect(rows.map((r) => r.id)).toEqual(['cmp1', 'msg3', 'msg4', 'msg5', 'msg6']);
    expect(rows[4]!.text).toContain('partial_compact: cmp1 replaced msg1..msg2');

    const { response, done } = await turn(c, 23, threadId, 'next question');
    const fresh = fake.calls('thread/start')[2];
    expect(fresh.id).toMatch(/^pcodx:/);
    expect(fresh.params).toMatchObject({ ephemeral: true, historyMode: null, threadSource: 'user' });
    expect(fresh.params.dynamicTools.map((t: any) => t.name)).toContain(PCODX_TOOLS.compact);
    const inject = fake.calls('thread/inject_items')[0].params;
    const injected = JSON.stringify(inject.items);
    expect(injected).toContain('SUMMARY_q\\n<aboveturn id=\\"cmp1\\"/>');
    expect(injected).not.toContain('SENTINEL_q');
    const upstreamTurn = fake.calls('turn/start').at(-1);
    expect(upstreamTurn.params.threadId).toBe(inject.threadId);
    expect(inject.threadId).not.toBe(threadId);
    // Back to the client: the fresh thread's id is rewritten, its thread/started is hidden.
    expect(done.params.threadId).toBe(threadId);
    expect(response.result.turn.status).toBe('inProgress');
    expect(JSON.stringify(c.frames)).not.toContain(inject.threadId);
    // Non-turn methods stay on the durable thread.
    await c.request('read', 'thread/read', { threadId });
    expect(fake.calls('thread/read').at(-1).params.threadId).toBe(threadId);
    // The following turn stays on the same fresh thread (no new compaction).
    await turn(c, 24, threadId, 'and another');
    expect(fake.calls('turn/start').at(-1).params.threadId).toBe(inject.threadId);
    expect(fake.calls('thread/inject_items')).toHaveLength(1);
  });

  it('maps a resumed thread: with history in the session its next turn is seeded on a fresh thread', async () => {
    await ledger.record('S', [{ role: 'user', text: 'old question' }, { role: 'assistant', text: 'old answer' }]);
    await start(true);
    const c = await client();
    await c.request('i', 'initialize', { clientInfo: { name: 'codex_exec' }, capabilities: { experimentalApi: true } });
    const resumed = await c.request('r', 'thread/resume', { threadId: 'thread-durable-old', cwd: dir, model: 'm' });
    expect(fake.calls('thread/resume')[0].params.developerInstructions).toContain('PCODX partial compaction');
    const { done } = await turn(c, 't', resumed.result.thread.id, 'continue');
    const fresh = fake.calls('thread/start')[0];
    expect(fresh.params).toMatchObject({ cwd: dir, model: 'm', ephemeral: true });
    expect(JSON.stringify(fake.calls('thread/inject_items')[0].params.items)).toContain('old answer');
    expect(done.params.threadId).toBe('thread-durable-old');
    expect((await ledger.visibleIds('S'))).toEqual(['msg1', 'msg2', 'msg3', 'msg4']);
  });

  it('maps a forked thread like a resumed one and leaves an ephemeral fork alone', async () => {
    await start(true);
    const c = await client();
    const threadId = await primaryThread(c, 'fk');
    await turn(c, 'fk1', threadId, 'before the fork');
    const forked = await c.request('fork', 'thread/fork', { threadId, cwd: dir });
    const forkId = forked.result.thread.id;
    expect(forkId).not.toBe(threadId);
    const { done } = await turn(c, 'fk2', forkId, 'on the fork');
    // The session has history, so the fork's first turn runs on a fresh thread seeded with it.
    const inject = fake.calls('thread/inject_items')[0].params;
    expect(JSON.stringify(inject.items)).toContain('before the fork');
    expect(fake.calls('turn/start').at(-1).params.threadId).toBe(inject.threadId);
    expect(done.params.threadId).toBe(forkId);
    const ephemeral = await c.request('fork-e', 'thread/fork', { threadId, ephemeral: true, excludeTurns: true });
    expect(fake.calls('thread/fork').at(-1).params).toEqual({ threadId, ephemeral: true, excludeTurns: true });
    await turn(c, 'fk3', ephemeral.result.thread.id, 'side question');
    expect(fake.calls('turn/start').at(-1).params.threadId).toBe(ephemeral.result.thread.id);
    expect((await ledger.visible('S')).map((e) => e.text)).not.toContain('side question');
  });

  it('answers a refused partial_compact with success:false and stores nothing', async () => {
    await start(true);
    const c = await client();
    const threadId = await primaryThread(c, 'd');
    await turn(c, 30, threadId, 'one');
    await turn(c, 31, threadId, `TOOL partial_compact ${JSON.stringify({ ranges: [{ from_message_id: 'msg9', to_message_id: 'msg1', summary: 's' }] })}`);
    const toolReply = fake.received.find((r) => r.message.id === 0 && r.message.result)!.message.result;
    expect(toolReply.success).toBe(false);
    expect(toolReply.contentItems[0].text).toContain('not visible');
    expect(await ledger.compactions('S')).toEqual([]);
  });
});

describe('failures are clean', () => {
  it('answers malformed frames with JSON-RPC errors, forwards none of them, and keeps the connection', async () => {
    await start(true);
    const c = await client();
    c.send('not json at all');
    c.send('[1,2]');
    c.send(JSON.stringify({ id: { x: 1 }, method: 'initialize' }));
    c.send(JSON.stringify({ hello: 'world' }));
    c.send(JSON.stringify({ id: 5, method: '' }));
    await waitFor(() => c.frames.length === 5);
    expect(c.frames.map((m) => [m.id, m.error.code])).toEqual([[null, -32700], [null, -32600], [null, -32600], [null, -32600], [5, -32600]]);
    expect(fake.received).toEqual([]);
    const ok = await c.request('after', 'initialize', { clientInfo: { name: 'x' } });
    expect(ok.result.userAgent).toContain('x/0.171.0');
  });

  it('answers pending requests with -32000 and closes the client when the upstream dies mid-turn; turns already ingested stay', async () => {
    await start(true);
    const c = await client();
    const threadId = await primaryThread(c, 'e');
    await turn(c, 40, threadId, 'kept turn');
    c.send({ id: 41, method: 'turn/start', params: { threadId, input: [{ type: 'text', text: 'CRASH' }] } });
    c.send({ id: 42, method: 'thread/read', params: { threadId } });
    const code = await c.closed;
    expect(code).toBe(1011);
    expect(c.frames.find((m) => m.id === 41).result.turn.status).toBe('inProgress');
    // The request the dead upstream never answered gets a clean error.
    expect(c.frames.find((m) => m.id === 42).error).toEqual({ code: -32000, message: expect.stringContaining('closed') });
    expect((await ledger.visible('S')).map((e) => e.text)).toEqual(['kept turn', 'answer: kept turn']);
    expect(log.some((l) => l.startsWith('upstream_closed'))).toBe(true);
    // The serve itself lives on.
    const again = await client();
    expect((await again.request('x', 'initialize', {})).result.userAgent).toBeDefined();
  });

  it('answers every pending request when the upstream is unreachable', async () => {
    const gone = fake.url;
    await fake.close();
    serve = await startServe({ listen: 'ws://127.0.0.1:0', upstream: gone, launch: false, log: (e) => log.push(e) });
    fake = await FakeAppServer.start();
    const c = await client();
    c.send({ id: 'a', method: 'initialize', params: {} });
    c.send({ id: 'b', method: 'thread/start', params: {} });
    // The client is closed with 1011; whatever it sent before that is answered with -32000, never left hanging.
    expect(await c.closed).toBe(1011);
    for (const m of c.frames) expect(m.error.code).toBe(-32000);
    expect(log).toContain('upstream_closed');
  });

  it('a client that disconnects mid-turn: the app-server finishes the turn, it is ingested, then the upstream connection goes', async () => {
    await start(true);
    const c = await client();
    const threadId = await primaryThread(c, 'f');
    await c.request(50, 'turn/start', { threadId, input: [{ type: 'text', text: 'HOLD until released' }] });
    await waitFor(() => fake.heldTurns === 1);
    c.close();
    await waitFor(() => log.some((l) => l.startsWith('client_closed') && l.includes('"turns_in_flight":1')));
    // The upstream connection stays for the running turn.
    expect(fake.closedConnections).toEqual([]);
    fake.release();
    await waitFor(() => fake.closedConnections.includes(1));
    expect(await ledger.visibleIds('S')).toEqual(['msg1', 'msg2']);
    expect(log.some((l) => l.startsWith('orphan_turns_done'))).toBe(true);
    const d = await client();
    const t2 = await primaryThread(d, 'g');
    await turn(d, 51, t2, 'still works');
    expect(await ledger.visibleIds('S')).toEqual(['msg1', 'msg2', 'msg3', 'msg4']);
  });

  it('a client that disconnects with nothing running closes its upstream connection at once', async () => {
    await start(true);
    const c = await client();
    await primaryThread(c, 'h');
    c.close();
    await waitFor(() => fake.closedConnections.includes(1));
    expect(log.some((l) => l.startsWith('client_closed') && l.includes('"turns_in_flight":0'))).toBe(true);
  });

  it('serves two clients at once, each over its own upstream connection, ingesting both', async () => {
    await start(true);
    const [a, b] = [await client(), await client()];
    const [ta, tb] = await Promise.all([primaryThread(a, 'a2'), primaryThread(b, 'b2')]);
    // Same request id on both connections: each gets its own answer.
    const [ra, rb] = await Promise.all([turn(a, 1, ta, 'from A'), turn(b, 1, tb, 'from B')]);
    expect(ra.done.params.threadId).toBe(ta);
    expect(rb.done.params.threadId).toBe(tb);
    expect(a.frames.some((m) => JSON.stringify(m).includes('from B'))).toBe(false);
    expect(b.frames.some((m) => JSON.stringify(m).includes('from A'))).toBe(false);
    expect(new Set(fake.received.map((r) => r.connection))).toEqual(new Set([1, 2]));
    expect((await ledger.visible('S')).map((e) => e.text).sort()).toEqual(['answer: from A', 'answer: from B', 'from A', 'from B']);
  });
});

describe('frame capture (PCODX_WS_FIXTURE_DIR)', () => {
  const runDirs = (fixtures: string) => readdirSync(fixtures).filter((n) => n.startsWith('run-')).sort();

  it('writes every text frame of each direction to numbered owner-only files per connection, in a run directory of its own', async () => {
    const fixtures = join(dir, 'fixtures');
    serve = await startServe({ listen: 'ws://127.0.0.1:0', upstream: fake.url, launch: false, fixtureDir: fixtures, log: () => undefined });
    const c = await client();
    await c.request('initialize', 'initialize', { clientInfo: { name: 'cap' } });
    const [run] = runDirs(fixtures);
    expect(run).toMatch(/^run-\d{8}T\d{6}-\d+-1$/);
    const conn = join(fixtures, run!, 'conn-1');
    await waitFor(() => readdirSync(conn).length === 4);
    const files = readdirSync(conn).sort();
    expect(files).toEqual(['000001-c2p.json', '000002-p2s.json', '000003-s2p.json', '000004-p2c.json']);
    for (const d of [fixtures, join(fixtures, run!), conn]) expect(statSync(d).mode & 0o777).toBe(0o700);
    for (const f of files) expect(statSync(join(conn, f)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(conn, files[0]!), 'utf8')).method).toBe('initialize');
  });

  it('a second serve (and a third) on the same fixture directory captures into its own run directory and never crashes', async () => {
    const fixtures = join(dir, 'fixtures');
    const serves = [];
    for (let i = 0; i < 3; i++) serves.push(await startServe({ listen: 'ws://127.0.0.1:0', upstream: fake.url, launch: false, fixtureDir: fixtures, log: (e, f) => log.push(`${e} ${JSON.stringify(f)}`) }));
    try {
      for (const [i, s] of serves.entries()) {
        const c = await TestClient.connect(s.listenClientUrl, s.clientHeaders);
        clients.push(c);
        expect((await c.request(`i${i}`, 'initialize', {})).result.userAgent).toBeDefined();
      }
      const runs = runDirs(fixtures);
      expect(runs).toHaveLength(3);
      for (const run of runs) await waitFor(() => readdirSync(join(fixtures, run, 'conn-1')).length === 4);
      expect(log.filter((l) => l.startsWith('capture_failed'))).toEqual([]);
    } finally {
      for (const s of serves) await s.close();
    }
  });

  it('a capture write that fails is logged once and the relay carries on', async () => {
    const fixtures = join(dir, 'fixtures');
    await start(false, { fixtureDir: fixtures });
    const c = await client();
    await c.request('a', 'initialize', {});
    const [run] = runDirs(fixtures);
    await waitFor(() => readdirSync(join(fixtures, run!, 'conn-1')).length === 4);
    // A name the next frame needs is taken (as a concurrent writer would): create-new fails with EEXIST.
    mkdirSync(join(fixtures, run!, 'conn-1', '000005-c2p.json'));
    expect((await c.request('b', 'thread/start', {})).result.thread.id).toBeDefined();
    expect((await c.request('c', 'thread/start', {})).result.thread.id).toBeDefined();
    const failures = log.filter((l) => l.startsWith('capture_failed'));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain('EEXIST');
  });
});

describe('listening', () => {
  /** The HTTP status an upgrade to `url` with `headers` gets (101 when it is accepted). */
  const upgradeStatus = (url: string, headers: Record<string, string>) =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(url, { headers });
      socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.once('open', () => {
        socket.close();
        resolve(101);
      });
    });

  it('refuses upgrades with an Origin header (403)', async () => {
    await start(false);
    expect(await upgradeStatus(serve!.listenClientUrl, { ...serve!.clientHeaders, origin: 'https://evil.example' })).toBe(403);
  });

  it('a TCP listener refuses clients without its capability token (401) before relaying anything', async () => {
    await start(false);
    expect(serve!.clientHeaders.authorization).toMatch(/^Bearer [A-Za-z0-9_-]{43}$/);
    const token = serve!.clientHeaders.authorization!.slice('Bearer '.length);
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer ' }, { authorization: `Bearer ${token.slice(0, -1)}` }, { authorization: `Bearer ${token}x` }, { authorization: token }, { authorization: `Basic ${token}` }]) {
      expect(await upgradeStatus(serve!.listenClientUrl, headers)).toBe(401);
    }
    expect(fake.received).toEqual([]);
    expect(await upgradeStatus(serve!.listenClientUrl, serve!.clientHeaders)).toBe(101);
  });

  it('takes the token it is given, and never passes the client\'s Authorization on to the upstream', async () => {
    const token = 'a-token-the-user-chose-0123456789abcdef';
    await start(false, { listenToken: token });
    expect(serve!.clientHeaders).toEqual({ authorization: `Bearer ${token}` });
    const c = await client();
    await c.request('i', 'initialize', {});
    expect(fake.upgradeHeaders.at(-1)?.authorization).toBeUndefined();
  });

  it('sends the token of an app-server the user started (--upstream-auth-token-env) to it, and nothing else', async () => {
    await start(false, { upstreamToken: 'the-app-server-token' });
    const c = await client();
    await c.request('i', 'initialize', {});
    expect(fake.upgradeHeaders.at(-1)?.authorization).toBe('Bearer the-app-server-token');
  });

  it('listens on a unix socket in an owner-only directory without a token', async () => {
    const sockets = join(dir, 'sockets');
    mkdirSync(sockets, { mode: 0o700 });
    const path = join(sockets, 'serve.sock');
    serve = await startServe({ listen: `unix://${path}`, upstream: fake.url, launch: false, log: () => undefined });
    expect(serve.listenUrl).toBe(`unix://${path}`);
    expect(serve.clientHeaders).toEqual({});
    const c = await client();
    expect((await c.request('i', 'initialize', {})).result.userAgent).toBeDefined();
    await serve.close();
    serve = undefined;
    expect(() => statSync(path)).toThrow();
    // A directory others can enter is refused.
    const open = join(dir, 'open');
    mkdirSync(open, { mode: 0o755 });
    await expect(startServe({ listen: `unix://${join(open, 's.sock')}`, upstream: fake.url, launch: false, log: () => undefined })).rejects.toThrow(/open to group or others/);
  });

  it('relays between unix sockets: its own and that of an app-server the user started (--no-launch-upstream)', async () => {
    const sockets = join(dir, 'sockets');
    mkdirSync(sockets, { mode: 0o700 });
    const upstreamPath = join(sockets, 'app.sock');
    const http = createHttpServer();
    const echo = new WebSocketServer({ server: http });
    echo.on('connection', (socket) => socket.on('message', (data) => socket.send(JSON.stringify({ id: JSON.parse(data.toString()).id, result: { echoed: true } }))));
    await new Promise<void>((r) => http.listen(upstreamPath, () => r()));
    try {
      serve = await startServe({ listen: `unix://${join(sockets, 'serve.sock')}`, upstream: `unix://${upstreamPath}`, launch: false, log: () => undefined });
      expect(serve.upstreamUrl).toBe(`unix://${upstreamPath}`);
      const c = await client();
      expect((await c.request('u', 'initialize', {})).result).toEqual({ echoed: true });
    } finally {
      await serve?.close();
      serve = undefined;
      echo.close();
      await new Promise((r) => http.close(r));
    }
  });

  it('refuses a non-loopback --listen without --allow-remote', async () => {
    await expect(startServe({ listen: 'ws://0.0.0.0:0', upstream: fake.url, launch: false, log: () => undefined })).rejects.toThrow(/--allow-remote/);
    await expect(startServe({ listen: 'http://127.0.0.1:1', upstream: fake.url, launch: false, log: () => undefined })).rejects.toThrow(/ws:\/\//);
    await expect(startServe({ listen: 'unix://relative.sock', upstream: fake.url, launch: false, log: () => undefined })).rejects.toThrow(/absolute path/);
    serve = await startServe({ listen: 'ws://0.0.0.0:0', upstream: fake.url, launch: false, allowRemote: true, log: () => undefined });
    expect(serve.listenUrl).toMatch(/^ws:\/\/0\.0\.0\.0:\d+$/);
    // Still behind the token.
    expect(await upgradeStatus(serve.listenUrl.replace('0.0.0.0', '127.0.0.1'), {})).toBe(401);
  });
});
