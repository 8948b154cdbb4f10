import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPlugins, makeSandbox, runProcess, type RunResult, type Sandbox } from '../../../../test/support/cli.js';

// What pcodx prints on a terminal is escaped as the host's output is (api.services.terminal, the
// host's terminalLines): an ESC or BEL recorded in the ledger shows as \u001b, \u0007. Piped, a
// render is data (the prompt Codex gets: docs/pcodx.md) and stays byte for byte. Built CLI; the
// terminal is a pty of script(1), both routes (fast and oclif).

let box: Sandbox;
let db: string;
beforeEach(() => {
  box = makeSandbox('cordon-pcodx-tty-');
  linkPlugins(box.dataDir, ['codex']);
  db = join(box.root, 'pcodx.sqlite3');
});
afterEach(() => box.cleanup());

/** An OSC 52 clipboard write, a BEL and a tab: what a hostile recorded text may hold. */
const HOSTILE = 'copy\x1b]52;c;ZXZpbA==\x07 done\tok';
const SHOWN = 'copy\\u001b]52;c;ZXZpbA==\\u0007 done\tok';

const quote = (a: string): string => `'${a.replaceAll("'", `'\\''`)}'`;

/** `cordon pcodx --db DB ARGS` with stdout on a terminal (script's pty; its LF comes back as CR LF). */
async function onTerminal(args: readonly string[], env: NodeJS.ProcessEnv, input = '', ledger = db): Promise<RunResult & { text: string }> {
  const line = [process.execPath, CORDON_BIN, 'pcodx', '--db', ledger, ...args].map(quote).join(' ');
  const r = await runProcess(['script', '-qec', line, '/dev/null'], { env, input });
  return { ...r, text: r.stdout.replaceAll('\r\n', '\n') };
}

/** `cordon pcodx --db DB ARGS` with stdout a pipe. */
const piped = (args: readonly string[], env: NodeJS.ProcessEnv): Promise<RunResult> => runProcess([process.execPath, CORDON_BIN, 'pcodx', '--db', db, ...args], { env });

describe('pcodx on a terminal', () => {
  it('show, show --roles, ids and turn escape control characters on a terminal and keep the bytes in a pipe, on both routes', async () => {
    expect((await piped(['record', '--session', 's', '--role', 'user', '--text', HOSTILE], box.env)).exitCode).toBe(0);
    expect((await piped(['record', '--session', 'x\x1b[2Jy', '--role', 'user', '--text', 'other'], box.env)).exitCode).not.toBe(0);
    for (const env of [box.env, { ...box.env, CORDON_NO_FAST_ROUTE: '1' }]) {
      const show = await onTerminal(['show', '--session', 's'], env);
      expect([show.exitCode, show.text.startsWith(`${SHOWN}\n<aboveturn id="msg1"/>\n`)]).toEqual([0, true]);
      expect(show.text).not.toMatch(/[\x1b\x07]/);
      const roles = await onTerminal(['show', '--session', 's', '--roles'], env);
      expect(roles.exitCode).toBe(0);
      expect(roles.text).toContain(SHOWN);
      expect(roles.text).not.toMatch(/[\x1b\x07]/);
      const turn = await onTerminal(['turn', '--session', 's', '--text', 'next\x1b[2J'], env);
      expect(turn.exitCode).toBe(0);
      expect(turn.text).toContain(`${SHOWN}\n<aboveturn id="msg1"/>`);
      expect(turn.text).toContain('next\\u001b[2J');
      expect(turn.text).not.toMatch(/[\x1b\x07]/);
      const ids = await onTerminal(['ids', '--session', 's'], env);
      expect(ids.exitCode).toBe(0);
      expect(ids.text).not.toMatch(/[\x1b\x07]/);
      // Piped, the render is the ledger's text byte for byte.
      const raw = await piped(['show', '--session', 's'], env);
      expect([raw.exitCode, raw.stdout.split('\n<aboveturn')[0]]).toEqual([0, HOSTILE]);
      const rawTurn = await piped(['turn', '--session', 's', '--text', 'again\x07'], env);
      expect(rawTurn.stdout).toContain(`${HOSTILE}\n<aboveturn id="msg1"/>`);
      expect(rawTurn.stdout).toContain('again\x07');
    }
  }, 120_000);

  it("resume's render and the interactive loop's /show are escaped on a terminal", async () => {
    expect((await piped(['record', '--session', 's', '--role', 'user', '--text', HOSTILE], box.env)).exitCode).toBe(0);
    for (const args of [['resume', '--last'], ['interactive', '--session', 's']]) {
      const r = await onTerminal(args, box.env, '/show\n/exit\n');
      expect(r.exitCode, args.join(' ')).toBe(0);
      // The loop's prompt is drawn with readline's own CSI sequences; what was recorded is not sent raw.
      expect(r.text.split(SHOWN).length - 1, args.join(' ')).toBe(args[0] === 'resume' ? 2 : 1);
      expect(r.text, args.join(' ')).not.toMatch(/\x1b\]|\x07/);
    }
  }, 60_000);
});

/**
 * A stand-in for `codex app-server --listen stdio://` (JSON lines; the Codex app-server protocol,
 * docs/references.md#codex-app-server-protocol) whose one turn answers `answer` and reports usage.
 */
function fakeStdioAppServer(path: string, answer: string): void {
  const script = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === 'initialize') return send({ id: m.id, result: { userAgent: 'x/0.171.0' } });
  if (m.method === 'thread/start') return send({ id: m.id, result: { thread: { id: 't1' } } });
  if (m.method !== 'turn/start') return send({ id: m.id, result: {} });
  send({ id: m.id, result: { turn: { id: 'u1' } } });
  send({ method: 'item/completed', params: { threadId: 't1', item: { type: 'agentMessage', text: ${JSON.stringify(answer)} } } });
  const last = { inputTokens: 10, cachedInputTokens: 0, outputTokens: 2, reasoningOutputTokens: 0, totalTokens: 12 };
  send({ method: 'thread/tokenUsage/updated', params: { threadId: 't1', tokenUsage: { last, modelContextWindow: 1000 } } });
  send({ method: 'turn/completed', params: { threadId: 't1', turn: { id: 'u1', status: 'completed' } } });
});
`;
  writeFileSync(path, `#!${process.execPath}\n${script}`);
  chmodSync(path, 0o755);
}

describe('pcodx model-turn on a terminal', () => {
  it("the model's answer and the usage log's path are escaped on a terminal; piped, the answer is byte for byte", async () => {
    expect((await piped(['record', '--session', 's', '--role', 'user', '--text', 'q'], box.env)).exitCode).toBe(0);
    const codex = join(box.root, 'fake-codex');
    fakeStdioAppServer(codex, HOSTILE);
    const logDir = join(box.root, 'log\x1b]0;title\x07');
    mkdirSync(logDir);
    const args = ['model-turn', '--session', 's', '--text', 'go', '--codex-bin', codex, '--usage-log', join(logDir, 'usage.jsonl')];
    const shown = await onTerminal(args, box.env);
    expect(shown.exitCode, shown.text).toBe(0);
    expect(shown.text).toContain(`${SHOWN}\n`);
    expect(shown.text).toContain('usage_log=');
    expect(shown.text).toContain('log\\u001b]0;title\\u0007');
    expect(shown.text).not.toMatch(/[\x1b\x07]/);
    const raw = await piped(args, box.env);
    expect([raw.exitCode, raw.stdout]).toEqual([0, `${HOSTILE}\n`]);
    // stderr is a terminal's text whatever stdout is: the path typed is escaped there too.
    expect(raw.stderr).toContain(`usage_log=${join(box.root, 'log\\u001b]0;title\\u0007', 'usage.jsonl')}\n`);
  }, 60_000);
});

describe('pcodx errors on a terminal', () => {
  // What the user typed comes back in an error (a path, an id, a file name): escaped as the host's
  // errors are, on stderr (script's pty carries both streams), on both routes and under --json.
  const RED = 'm\x1b[31mx';
  it('every error path escapes what it quotes', async () => {
    expect((await piped(['init', '--session', 's'], box.env)).exitCode).toBe(0);
    const cases: Array<{ args: string[]; env?: NodeJS.ProcessEnv; db?: string; shown: string }> = [
      // The host's ledger refusal, on the fast route and on oclif's.
      { args: ['show'], db: join(box.root, RED), shown: `no ledger at ${join(box.root, 'm\\u001b[31mx')}` },
      { args: ['show'], db: join(box.root, RED), env: { CORDON_NO_FAST_ROUTE: '1' }, shown: 'm\\u001b[31mx' },
      { args: ['compact', '--session', 's', '--from', RED, '--to', 'msg1', '--summary', 'x'], shown: 'endpoint `m\\u001b[31mx`' },
      { args: ['compact', '--json', '--session', 's', '--from', RED, '--to', 'msg1', '--summary', 'x'], shown: 'endpoint `m\\\\u001b[31mx`' },
      // Thrown before the command chose its output.
      { args: ['record', '--session', 's', '--role', 'user', '--text-file', join(box.root, RED)], shown: 'm\\u001b[31mx' },
    ];
    for (const c of cases) {
      const r = await onTerminal(c.args, { ...box.env, ...c.env }, '', c.db);
      expect(r.exitCode, c.args.join(' ')).not.toBe(0);
      expect(r.text, c.args.join(' ')).toContain(c.shown);
      expect(r.text, c.args.join(' ')).not.toMatch(/\x1b\[31m/);
    }
  }, 120_000);
});
