import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { linkCodex, pcodx } from './support.js';

// `--json` on every pcodx command that prints data (one output contract with the host's
// commands): one object on stdout, the same facts as the key=value lines, errors as
// {"error": {"message"}} with the same exit code.

let box: Sandbox;
let db: string;
beforeEach(() => {
  box = makeSandbox('cordon-pcodx-json-');
  linkCodex(box);
  db = join(box.root, 'pcodx.sqlite3');
});
afterEach(() => box.cleanup());

async function json(args: string[], exit = 0): Promise<Record<string, unknown>> {
  const r = await pcodx(box, db, [...args, '--json']);
  expect([args.join(' '), r.exitCode], r.stderr).toEqual([args.join(' '), exit]);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

describe('pcodx --json', () => {
  it('init, record, turn, compact, compact-many, uncompact, ids, show and current-session-message-ids print one object each', async () => {
    expect(await json(['init', '--session', 'j'])).toEqual({ session_id: 'j', db_path: db });
    for (const text of ['one', 'two key=value', 'three']) await json(['record', '--role', 'user', '--text', text]);
    expect(await json(['record', '--role', 'assistant', '--text', 'four'])).toEqual({ session_id: 'j', message_id: 'msg4', visible_ids: ['msg1', 'msg2', 'msg3', 'msg4'] });
    const turn = await json(['turn', '--text', 'five']);
    expect(turn).toMatchObject({ session_id: 'j', prompt_message_id: 'msg5', future_context_source: 'pcodx-render' });
    // The render is one string; a message holding `key=value` stays in it, not a field.
    expect(turn.render).toContain('two key=value\n<aboveturn id="msg2"/>');
    expect(turn).not.toHaveProperty('key');
    const one = await json(['compact', '--from', 'msg1', '--to', 'msg2', '--summary', 'first two']);
    expect(one).toMatchObject({ session_id: 'j', compaction_id: 'cmp1', n_messages_replaced: 2, visible_ids: ['cmp1', 'msg3', 'msg4', 'msg5'] });
    expect(typeof one.warning).toBe('string');
    const many = await json(['compact-many', '--range', 'msg3..msg3=third', '--range', 'msg4..msg4=fourth']);
    expect(many).toMatchObject({ n_ranges_compacted: 2, n_messages_replaced: 2, compaction: ['cmp2 msg3..msg3', 'cmp3 msg4..msg4'], visible_ids: ['cmp1', 'cmp2', 'cmp3', 'msg5'] });
    expect(Object.keys(many.warning as object)).toEqual(['cmp2']);
    expect(await json(['uncompact', 'cmp3'])).toMatchObject({ session_id: 'j', visible_ids: ['cmp1', 'cmp2', 'msg4', 'msg5'] });
    expect(await json(['ids'])).toEqual({ session_id: 'j', lines: ['cmp1', 'cmp2', 'msg4', 'msg5'] });
    const show = await json(['show']);
    expect(Object.keys(show)).toEqual(['render']);
    expect(show.render).toMatch(/^first two\n<aboveturn id="cmp1"\/>/);
    expect(Object.keys(await json(['current-session-message-ids']))).toEqual(['render']);
    const dry = await json(['compact', '--from', 'msg4', '--to', 'msg5', '--summary', 'x', '--dry-run']);
    expect(dry).toMatchObject({ stored: 'false', compaction_id: 'cmp4' });
    expect(dry.render).toMatch(/<aboveturn id="cmp4"\/>$/);
  });

  // An empty list printed no `lines` field at all (`{"session_id": "j"}`, `{}`), so a reader of
  // `.lines` met undefined where it met an array otherwise; now it is an empty array, on both routes.
  it('ids and sessions give "lines" as an array even when there is nothing to list', async () => {
    expect(await json(['init', '--session', 'j'])).toEqual({ session_id: 'j', db_path: db });
    for (const env of [{}, { CORDON_NO_FAST_ROUTE: '1' }]) {
      const ids = await pcodx(box, db, ['ids', '--json'], { env });
      expect([ids.exitCode, JSON.parse(ids.stdout)]).toEqual([0, { session_id: 'j', lines: [] }]);
    }
    const raw = new Database(db);
    raw.prepare('delete from sessions').run();
    raw.close();
    expect(await json(['sessions'])).toEqual({ lines: [] });
  });

  it('prompts --json: the fragment names, or one fragment\'s text', async () => {
    const list = await json(['prompts']);
    expect(list.fragments).toContain('partial-compact-instruction.md');
    const one = await json(['prompts', 'partial-compact-instruction.md']);
    expect(one).toMatchObject({ name: 'partial-compact-instruction.md', text: expect.any(String) });
    expect(await json(['prompts', 'nope.md'], 2)).toEqual({ error: { message: 'unknown prompt `nope.md`' } });
    // Its refusal goes through the one printer of every pcodx command (CommandOutput.fail): the
    // name as typed, escaped for a terminal as every pcodx error message is, --json or not.
    expect(await json(['prompts', 'no\x1b[2Jpe.md'], 2)).toEqual({ error: { message: 'unknown prompt `no\\u001b[2Jpe.md`' } });
  });

  it('errors are an object too, with the exit code of the line form', async () => {
    await json(['init', '--session', 'j']);
    expect(await json(['record', '--role', 'user'], 2)).toEqual({ error: { message: 'pass --text TEXT or --text-file PATH (- for stdin)' } });
    expect(await json(['turn'], 2)).toEqual({ error: { message: 'pass --text TEXT or --text-file PATH (- for stdin)' } });
    expect(await json(['show', '--session', 'nope'], 1)).toEqual({ error: { message: 'unknown session `nope` (`cordon pcodx sessions` lists the sessions of this ledger)' } });
    expect(await json(['uncompact', 'cmp9'], 1)).toMatchObject({ error: { message: expect.stringContaining('cmp9') } });
  });
});

/** Runs `cordon pcodx ARGS` with stdout into `file` (an output longer than one JavaScript string can hold); resolves with the exit code and stderr. */
function pcodxToFile(args: string[], file: string, env: NodeJS.ProcessEnv): Promise<{ exitCode: number | null; stderr: string }> {
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, [CORDON_BIN, 'pcodx', ...args], { env, stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.once('close', (exitCode) => resolve({ exitCode, stderr })));
}

/** sha256 of a file, read in pieces. */
async function fileSha(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

// A render whose JSON is longer than one JavaScript string can hold (0x1fffffe8 units: a 90 MiB
// message of NUL bytes is 566 million characters as JSON, six for each) crashed `show --json`:
// `RangeError: Invalid string length` with a stack trace on the fast route, a bare
// `RangeError: Invalid string length` through oclif, exit 1 and nothing on stdout.
it('show --json prints a render whose JSON is longer than one JavaScript string, on both routes', async () => {
  const nuls = 90 * 1024 * 1024;
  const text = join(box.root, 'nul.txt');
  writeFileSync(text, Buffer.alloc(nuls));
  expect((await pcodx(box, db, ['record', '--session', 'big', '--role', 'user', '--text-file', text])).exitCode).toBe(0);
  const expected = createHash('sha256').update('{\n  "render": "');
  const escaped = '\\u0000'.repeat(1024 * 1024);
  for (let i = 0; i < nuls / (1024 * 1024); i++) expected.update(escaped);
  expected.update('\\n<aboveturn id=\\"msg1\\"/>"\n}\n');
  const want = expected.digest('hex');
  for (const env of [{}, { CORDON_NO_FAST_ROUTE: '1' }]) {
    const out = join(box.root, 'show.json');
    const r = await pcodxToFile(['show', '--session', 'big', '--json'], out, { ...box.env, PCODX_DB: db, ...env });
    expect([r.exitCode, r.stderr], JSON.stringify(env)).toEqual([0, '']);
    expect(await fileSha(out), JSON.stringify(env)).toBe(want);
    rmSync(out);
  }
}, 180_000);
