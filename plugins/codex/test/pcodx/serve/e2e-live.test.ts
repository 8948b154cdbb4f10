import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { runProcess } from '../../../../../test/support/cli.js';
import { pcodx, tableRows } from '../support.js';
import { TestClient } from './fake-app-server.js';
import { codexBox, e2eServeSuite, requestText, startServeProcess, type CodexBox, type ServeProcess } from './support.js';

// Issue 27 §2 "The live thread sees what the ledger says", each example with the real pinned Codex
// app-server behind `cordon pcodx serve --enable-pcodx-tools` and a fake Responses server.

const { held, clients } = e2eServeSuite();

/** Polls `check` (every 50 ms, up to 120 s) until it holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Live extends CodexBox {
  readonly serve: ServeProcess;
  readonly session: string;
  /** `codex exec --remote <serve> …` */
  exec(args: string[]): ReturnType<typeof runProcess>;
  /** `cordon pcodx …` from another process, on the serve's ledger. */
  cli(args: string[]): ReturnType<typeof runProcess>;
  /** A JSON-RPC client of the serve (initialized). */
  connect(): Promise<TestClient>;
  /** The texts of the session's rows in order. */
  rows(session?: string): string[];
}

async function live(prefix: string, session: string): Promise<Live> {
  const box = await codexBox(held, prefix);
  const serve = await startServeProcess(['--codex-bin', box.bin, '--enable-pcodx-tools', '--session', session], box.env, box.codex.workdir);
  const socket = serve.listen.replace(/^unix:\/\//, '');
  let n = 0;
  return {
    ...box,
    serve,
    session,
    exec: (args) => runProcess([box.bin, 'exec', '--remote', serve.listen, '--skip-git-repo-check', '--json', ...args], { env: box.env, cwd: box.codex.workdir, timeoutMs: 120_000 }),
    cli: (args) => pcodx(box.box, box.db, [...args, '--session', session], { env: box.env, cwd: box.codex.workdir }),
    connect: async () => {
      const c = await TestClient.connect(`ws+unix:${socket}:/`);
      clients.push(c);
      const init = await c.request(`init-${++n}`, 'initialize', { clientInfo: { name: 'cordon-e2e', version: '0.0.0' }, capabilities: null });
      expect(init.error).toBeUndefined();
      c.send({ method: 'initialized' });
      return c;
    },
    rows: (s = session) => tableRows(box.db, `select text from messages where session_id = '${s.replace(/'/g, "''")}' order by seq`).map((r) => String(r.text)),
  };
}

let requestIds = 0;
async function startThread(c: TestClient, cwd: string, extra: Record<string, unknown> = {}): Promise<string> {
  const started = await c.request(`start-${++requestIds}`, 'thread/start', { cwd, approvalPolicy: 'never', ...extra });
  expect(started.error).toBeUndefined();
  return started.result.thread.id;
}

/** Runs one turn and resolves with its `turn/completed` notification. */
async function turn(c: TestClient, threadId: string, text: string): Promise<any> {
  const response = await c.request(`turn-${++requestIds}`, 'turn/start', { threadId, input: [{ type: 'text', text, text_elements: [] }] });
  expect(response.error, JSON.stringify(response.error)).toBeUndefined();
  return c.next((m) => m.method === 'turn/completed' && m.params.turn.id === response.result.turn.id);
}

const threadOf = (stdout: string) => stdout.split('\n').map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((e) => e.type === 'thread.started')?.thread_id as string;
const lastRequest = (l: Live) => requestText(l.server.modelRequests().at(-1)!);
const count = (text: string, word: string) => text.split(word).length - 1;

it('a compaction, then an uncompaction, made with the CLI from another terminal applies to the next turn of a client that stays connected', async () => {
  const l = await live('cordon-live-cli-', 'live1');
  const c = await l.connect();
  const thread = await startThread(c, l.codex.workdir);
  await turn(c, thread, 'please remember SENTINEL_a1 for later');
  expect(lastRequest(l)).toContain('SENTINEL_a1');
  await turn(c, thread, 'second turn');
  expect(count(l.serve.stderr(), 'event=fresh_thread')).toBe(0);

  const compacted = await l.cli(['compact', '--from', 'msg1', '--to', 'msg2', '--summary', 'SUMMARY_cli1: a code word was given']);
  expect(compacted.exitCode, compacted.stderr).toBe(0);
  await turn(c, thread, 'what do you know?');
  expect(lastRequest(l)).toContain('SUMMARY_cli1');
  expect(lastRequest(l)).not.toContain('SENTINEL_a1');
  expect(count(l.serve.stderr(), 'event=fresh_thread')).toBe(1);

  const uncompacted = await l.cli(['uncompact', 'cmp1']);
  expect(uncompacted.exitCode, uncompacted.stderr).toBe(0);
  await turn(c, thread, 'and now?');
  expect(lastRequest(l)).toContain('SENTINEL_a1');
  expect(lastRequest(l)).not.toContain('SUMMARY_cli1');
  expect(count(l.serve.stderr(), 'event=fresh_thread')).toBe(2);
}, 240_000);

it('a client that drops while Codex finishes a turn, then resumes: the turn was ingested and the next fresh thread has it', async () => {
  const l = await live('cordon-live-drop-', 'live2');
  const c = await l.connect();
  const thread = await startThread(c, l.codex.workdir);
  const started = await c.request('held-turn', 'turn/start', { threadId: thread, input: [{ type: 'text', text: 'HOLD_MODEL finish this SENTINEL_d2', text_elements: [] }] });
  expect(started.error).toBeUndefined();
  await until(() => l.server.held === 1, 'the held model request');
  c.close();
  await until(() => /event=client_closed connection=1 turns_in_flight=1/.test(l.serve.stderr()), 'the client to be gone');
  l.server.release();
  await until(() => l.serve.stderr().includes('event=orphan_turns_done'), 'the orphaned turn to be ingested');
  expect(l.rows()).toEqual(['HOLD_MODEL finish this SENTINEL_d2', expect.stringContaining('ECHO HOLD_MODEL finish this SENTINEL_d2')]);

  const resumed = await l.exec(['resume', thread, 'what did you finish?']);
  expect(resumed.exitCode, resumed.stderr).toBe(0);
  const request = lastRequest(l);
  expect(request).toContain('ECHO HOLD_MODEL finish this SENTINEL_d2');
  expect(request).toContain('<aboveturn id=\\"msg2\\"/>');
  expect(l.rows()).toHaveLength(4);
}, 240_000);

it('a conversation started without pcodx and resumed through the serve gets the pcodx tools and keeps its history', async () => {
  const l = await live('cordon-live-plain-', 'live3');
  const plain = await runProcess([l.bin, 'exec', '--skip-git-repo-check', '--json', 'plain start SENTINEL_p3'], { env: l.env, cwd: l.codex.workdir, timeoutMs: 120_000 });
  expect(plain.exitCode, plain.stderr).toBe(0);
  const thread = threadOf(plain.stdout);
  expect(JSON.stringify(l.server.modelRequests().at(-1)!.body.tools ?? [])).not.toContain('"partial_compact"');

  const resumed = await l.exec(['resume', thread, 'CALL_TOOL partial_compact_current_session_message_ids {}']);
  expect(resumed.exitCode, resumed.stderr).toBe(0);
  const requests = l.server.modelRequests();
  const toolRequest = requests.at(-2)!;
  expect(JSON.stringify(toolRequest.body.tools)).toContain('"partial_compact"');
  expect(requestText(toolRequest)).toContain('SENTINEL_p3');
  // The proxy answered the call from the ledger: the imported turn is msg1..msg2.
  expect(resumed.stdout).toContain('TOOL_RESULT_SEEN');
  expect(requestText(requests.at(-1)!)).toMatch(/msg1.*msg2/);
  expect(l.rows()[0]).toBe('plain start SENTINEL_p3');
  expect(l.serve.stderr()).toMatch(/event=thread_mapped .*method=thread\/resume .*imported_messages=2/);
}, 240_000);

it('developer instructions given at thread/start survive exit and resume onto a fresh thread', async () => {
  const l = await live('cordon-live-instr-', 'live4');
  const c = await l.connect();
  const thread = await startThread(c, l.codex.workdir, { developerInstructions: 'INSTR_d4: answer like a pirate' });
  await turn(c, thread, 'hello');
  expect(lastRequest(l)).toContain('INSTR_d4');
  c.close();
  await until(() => /event=client_closed connection=1/.test(l.serve.stderr()), 'the client to be gone');

  const resumed = await l.exec(['resume', thread, 'and again']);
  expect(resumed.exitCode, resumed.stderr).toBe(0);
  expect(l.serve.stderr()).toContain('event=fresh_thread');
  expect(lastRequest(l)).toContain('INSTR_d4: answer like a pirate');
  expect(tableRows(l.db, "select role, text from messages where session_id = 'live4' order by seq")[0]).toEqual({ role: 'developer', text: 'INSTR_d4: answer like a pirate' });
}, 240_000);

it('turn/steer messages reach the ledger as user messages in order and survive the next compaction', async () => {
  const l = await live('cordon-live-steer-', 'live5');
  const c = await l.connect();
  const thread = await startThread(c, l.codex.workdir);
  const started = await c.request('steered-turn', 'turn/start', { threadId: thread, input: [{ type: 'text', text: 'HOLD_MODEL start SENTINEL_s5', text_elements: [] }] });
  await until(() => l.server.held === 1, 'the held model request');
  const steer = await c.request('steer-1', 'turn/steer', { threadId: thread, expectedTurnId: started.result.turn.id, input: [{ type: 'text', text: 'STEER_five: also check the tests', text_elements: [] }] });
  expect(steer.error, JSON.stringify(steer.error)).toBeUndefined();
  l.server.release();
  await c.next((m) => m.method === 'turn/completed');
  const rows = l.rows();
  expect(rows.slice(0, 2)).toEqual(['HOLD_MODEL start SENTINEL_s5', 'STEER_five: also check the tests']);
  expect(rows).toHaveLength(3);

  // Compact the first message only: the steer stays, and the next fresh thread has it.
  const compacted = await l.cli(['compact', '--from', 'msg1', '--to', 'msg1', '--summary', 'SUMMARY_s5: the user started a task']);
  expect(compacted.exitCode, compacted.stderr).toBe(0);
  await turn(c, thread, 'continue');
  expect(lastRequest(l)).toContain('STEER_five: also check the tests');
  expect(lastRequest(l)).toContain('SUMMARY_s5');
  expect(lastRequest(l)).not.toContain('SENTINEL_s5');
}, 240_000);

it('an ingestion that fails past the busy timeout is retried, then reported to the client, and recorded before the next turn', async () => {
  const l = await live('cordon-live-lock-', 'live6');
  const c = await l.connect();
  const thread = await startThread(c, l.codex.workdir);
  await turn(c, thread, 'first');
  const locker = new Database(l.db);
  locker.exec('begin immediate');
  let done: any;
  try {
    done = await turn(c, thread, 'second KEPT_k6');
  } finally {
    locker.exec('rollback');
    locker.close();
  }
  expect(done.params.turn.status).toBe('failed');
  expect(done.params.turn.error.message).toContain('could not record this turn');
  const error = c.frames.find((m) => m.method === 'error');
  expect(error.params).toMatchObject({ willRetry: false, threadId: thread, turnId: done.params.turn.id });
  expect(count(l.serve.stderr(), 'event=ingest_failed')).toBeGreaterThanOrEqual(3);
  expect(l.rows()).toHaveLength(2);

  await turn(c, thread, 'third');
  expect(l.rows().map((t) => t.split(' SENTINEL')[0])).toEqual(['first', expect.stringContaining('ECHO first'), 'second KEPT_k6', expect.stringContaining('ECHO second KEPT_k6'), 'third', expect.stringContaining('ECHO third')]);
}, 240_000);

it('thread/fork then a compaction on the original: each branch keeps its own ledger session', async () => {
  const l = await live('cordon-live-fork-', 'live7');
  const c = await l.connect();
  const original = await startThread(c, l.codex.workdir);
  await turn(c, original, 'shared SENTINEL_f7');
  const fork = await c.request('fork', 'thread/fork', { threadId: original });
  expect(fork.error, JSON.stringify(fork.error)).toBeUndefined();
  const forked = fork.result.thread.id as string;
  await turn(c, forked, 'FORK_only message');
  await turn(c, original, 'ORIG_only message');
  const forkSession = `live7~fork-${forked}`;
  expect(l.rows(forkSession)).toEqual(['shared SENTINEL_f7', expect.stringContaining('ECHO shared'), 'FORK_only message', expect.stringContaining('ECHO FORK_only')]);

  const compacted = await l.cli(['compact', '--from', 'msg1', '--to', 'msg2', '--summary', 'SUMMARY_orig7']);
  expect(compacted.exitCode, compacted.stderr).toBe(0);
  await turn(c, original, 'original continues');
  expect(lastRequest(l)).toContain('SUMMARY_orig7');
  expect(lastRequest(l)).toContain('ORIG_only');
  expect(lastRequest(l)).not.toContain('FORK_only');
  await turn(c, forked, 'fork continues');
  expect(lastRequest(l)).toContain('SENTINEL_f7');
  expect(lastRequest(l)).toContain('FORK_only');
  expect(lastRequest(l)).not.toContain('ORIG_only');
  expect(lastRequest(l)).not.toContain('SUMMARY_orig7');
  expect(l.rows().join('\n')).not.toContain('FORK_only');
}, 240_000);

// What the model writes reaches the client as the app-server sent it. A frame naming a fresh
// thread is rewritten (its id back to the client's), and the rewrite copied each object key by
// assignment: a key `__proto__` in the arguments the model gave a client's dynamic tool set the
// copy's prototype instead, so the client never saw that key.
it("a tool call's arguments on a fresh thread reach the client with every key the model wrote, __proto__ included", async () => {
  const l = await live('cordon-live-proto-', 'proto1');
  const c = await l.connect();
  const echo = { type: 'function', name: 'echo_args', description: 'Echoes its arguments.', inputSchema: { type: 'object', properties: {}, additionalProperties: true } };
  const thread = await startThread(c, l.codex.workdir, { dynamicTools: [echo] });
  await turn(c, thread, 'first');
  const compacted = await l.cli(['compact', '--from', 'msg1', '--to', 'msg2', '--summary', 'SUMMARY_p1']);
  expect(compacted.exitCode, compacted.stderr).toBe(0);
  const args = '{"__proto__":{"kept":1},"a":2}';
  const started = await c.request(`turn-${++requestIds}`, 'turn/start', { threadId: thread, input: [{ type: 'text', text: `CALL_TOOL echo_args ${args}`, text_elements: [] }] });
  expect(started.error).toBeUndefined();
  const call = await c.next((m) => m.method === 'item/tool/call');
  c.send({ id: call.id, result: { contentItems: [{ type: 'inputText', text: 'echoed' }], success: true } });
  await c.next((m) => m.method === 'turn/completed' && m.params.turn.id === started.result.turn.id);
  expect(count(l.serve.stderr(), 'event=fresh_thread')).toBe(1);
  expect(call.params.threadId).toBe(thread);
  expect(JSON.stringify(call.params.arguments)).toBe(args);
}, 240_000);
