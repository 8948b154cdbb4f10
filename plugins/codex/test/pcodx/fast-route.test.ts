import { copyFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type RunResult, type Sandbox } from '../../../../test/support/cli.js';
import { makeReferenceLedger } from '../../../../packages/host/test/ledger/reference-files.js';
import { linkCodex, pcodx, sha } from './support.js';

// `cordon pcodx show|ids|turn` run without oclif and the plugin host (the plugin's
// `cordon.fastCommands`, the host's src/fast/plugin-command.ts). Each case runs the same command
// on the same ledger through both routes (CORDON_NO_FAST_ROUTE=1 is the oclif route) and
// expects the same bytes on stdout and stderr and the same exit code.

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox('cordon-pcodx-fast-');
  linkCodex(box);
});
afterEach(() => box.cleanup());

const OCLIF = { CORDON_NO_FAST_ROUTE: '1' };

/** `cordon pcodx ARGS` with only flags naming the ledger; `env` added. */
const run = (args: readonly string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<RunResult> => pcodx(box, undefined, args, { env: { PCODX_DB: '', ...env }, ...(input !== undefined ? { input } : {}) });

/** The code-cache files the fast route's bundles leave (bin/run.cjs `requireCached`): proof that route ran. */
const fastCaches = (): string[] => {
  const dir = join(box.cacheDir, 'code-cache');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith('plugin-command.cjs-') || f.startsWith('_cordon_codex-fast.cjs-')) : [];
};

/** The error a failed run printed: `error: …` on stderr, or under `--json` the object's message on stdout. */
function errorText(r: RunResult, form: readonly string[]): string {
  if (!form.includes('--json')) return r.stderr.replace(/^error: /, '');
  expect(r.stderr).toBe('');
  return (JSON.parse(r.stdout) as { error: { message: string } }).error.message;
}

/** Runs `args` through both routes and expects one result; returns it. */
async function same(args: readonly string[], input?: string): Promise<RunResult> {
  const viaOclif = await run(args, OCLIF, input);
  const fast = await run(args, {}, input);
  expect({ exitCode: fast.exitCode, stdout: fast.stdout, stderr: fast.stderr }, args.join(' ')).toEqual({ exitCode: viaOclif.exitCode, stdout: viaOclif.stdout, stderr: viaOclif.stderr });
  return fast;
}

/**
 * A ledger with two sessions, messages of every role (multi-line text, text ending in a newline,
 * characters outside ASCII, a control character), a compaction, and `main` written last.
 */
async function writeLedger(db: string): Promise<void> {
  const ok = async (args: string[]) => expect((await run([...args, '--db', db])).exitCode, args.join(' ')).toBe(0);
  await ok(['init', '--session', 'other']);
  await ok(['record', '--session', 'other', '--role', 'user', '--text', 'elsewhere']);
  await ok(['init', '--session', 'main']);
  const messages: Array<[string, string]> = [
    ['system', 'be brief'],
    ['user', 'fix the parser\nit fails on "é" and \u001b[31mred\u001b[0m'],
    ['assistant', 'calling a tool'],
    ['tool', 'output line 1\noutput line 2\n'],
    ['assistant', 'done: 日本語 ✓'],
    ['user', 'thanks'],
  ];
  for (const [role, text] of messages) await ok(['record', '--session', 'main', '--role', role, '--text', text]);
  await ok(['compact', '--session', 'main', '--from', 'msg2', '--to', 'msg4', '--summary', 'the parser was fixed\n(two lines)']);
}

describe('pcodx show, ids and turn print the same through the fast route and through oclif', () => {
  it('show, show --roles, ids, each with and without --json, for the last session and a named one', async () => {
    const db = join(box.root, 'pcodx.sqlite3');
    await writeLedger(db);
    const forms: string[][] = [['show'], ['show', '--json'], ['show', '--roles'], ['show', '--roles', '--json'], ['ids'], ['ids', '--json'], ['show', '--session', 'other'], ['ids', '--session=other', '--json']];
    for (const form of forms) {
      const r = await same([...form, '--db', db]);
      expect(r.exitCode, form.join(' ')).toBe(0);
    }
    expect(fastCaches().length).toBeGreaterThanOrEqual(2);
    // The reference's spelling, global flags first (the topic command moves them after the command).
    for (const form of [['--db', db, 'show'], [`--db=${db}`, '--session', 'other', 'ids', '--json'], ['--session=main', '--db', db, 'show', '--roles']]) {
      expect((await same(form)).exitCode, form.join(' ')).toBe(0);
    }
    // The render itself: the compaction in place of msg2..msg4, no trailing blank line.
    const show = await run(['show', `--db=${db}`]);
    expect(show.stdout).toBe(['be brief\n<aboveturn id="msg1"/>', 'the parser was fixed\n(two lines)\n<aboveturn id="cmp1"/>', 'done: 日本語 ✓\n<aboveturn id="msg5"/>', 'thanks\n<aboveturn id="msg6"/>'].join('\n\n') + '\n');
    expect((await run(['ids', '--db', db])).stdout).toBe('session_id=main\nmsg1\ncmp1\nmsg5\nmsg6\n');
  });

  it('a render of many pieces (over 2,000 messages in one run) is the same bytes as one string', async () => {
    const db = join(box.root, 'pcodx.sqlite3');
    expect((await run(['init', '--session', 'long', '--db', db])).exitCode).toBe(0);
    const raw = new Database(db);
    const insert = raw.prepare(`insert into messages (session_id, id, seq, role, text, source, created_at_ms, is_human_prompt, preserve_warning) values ('long', ?, ?, ?, ?, 'test', 0, ?, ?)`);
    raw.transaction(() => {
      for (let seq = 1; seq <= 4_500; seq++) {
        const role = seq % 2 ? 'user' : 'assistant';
        insert.run(`msg${seq}`, seq, role, `message ${seq}${seq % 7 === 0 ? '\n' : ''}`, role === 'user' ? 1 : 0, role === 'user' ? 1 : 0);
      }
    })();
    raw.close();
    expect((await run(['compact', '--db', db, '--from', 'msg2001', '--to', 'msg2002', '--summary', 'two'])).exitCode).toBe(0);
    const r = await same(['show', '--db', db]);
    expect(r.stdout.startsWith('message 1\n<aboveturn id="msg1"/>\n\nmessage 2\n')).toBe(true);
    expect(r.stdout).toContain('<aboveturn id="msg2000"/>\n\ntwo\n<aboveturn id="cmp1"/>\n\nmessage 2003\n<aboveturn id="msg2003"/>');
    expect(r.stdout.endsWith('message 4500\n<aboveturn id="msg4500"/>\n')).toBe(true);
    expect(r.stdout.match(/<aboveturn /g)!.length).toBe(4_500 - 1);
  });

  it('turn records the prompt and prints the render: the same on two copies of one ledger, --text, --text-file -, --json', async () => {
    const db = join(box.root, 'pcodx.sqlite3');
    await writeLedger(db);
    for (const [i, form] of [['--text', 'next step'], ['--text-file', '-'], ['--text', 'as json', '--json'], ['--session', 'fresh', '--text', 'a new session']].entries()) {
      const a = join(box.root, `a${i}.sqlite3`);
      const b = join(box.root, `b${i}.sqlite3`);
      copyFileSync(db, a);
      copyFileSync(db, b);
      const input = form.includes('-') ? 'from stdin\n' : undefined;
      const viaOclif = await run(['turn', ...form, '--db', a], OCLIF, input);
      const fast = await run(['turn', ...form, '--db', b], {}, input);
      const norm = (r: RunResult, file: string) => ({ exitCode: r.exitCode, stdout: r.stdout.replaceAll(file, 'DB'), stderr: r.stderr.replace(/ses[0-9a-f]+-\d+/g, 'SES') });
      expect(norm(fast, b), form.join(' ')).toEqual(norm(viaOclif, a));
      expect(fast.exitCode).toBe(0);
    }
    const r = await run(['turn', '--text', 'last one', '--db', db]);
    expect(r.stderr).toBe('session_id=main\nprompt_message_id=msg7\nfuture_context_source=pcodx-render\n');
    expect(r.stdout.endsWith('\n\nlast one\n<aboveturn id="msg7"/>\n')).toBe(true);
  });
});

describe('errors are the same through both routes', () => {
  it('a missing ledger: the same message and exit code, and nothing is created', async () => {
    const db = join(box.root, 'missing', 'pcodx.sqlite3');
    for (const form of [['show'], ['ids'], ['show', '--json'], ['ids', '--json']]) {
      const r = await same([...form, '--db', db]);
      expect(r.exitCode).toBe(1);
    }
    expect((await run(['show', '--db', db])).stderr).toBe(`error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`);
    expect(existsSync(join(box.root, 'missing'))).toBe(false);
  });

  it('a file that is not SQLite, an SQLite file that is not a ledger, a damaged ledger: same error, exit 1, file unchanged', async () => {
    const text = join(box.root, 'notes.txt');
    writeFileSync(text, 'just some notes\n');
    const foreign = join(box.root, 'foreign.sqlite3');
    const raw = new Database(foreign);
    raw.exec('create table things (id integer primary key)');
    raw.close();
    const damaged = join(box.root, 'damaged.sqlite3');
    makeReferenceLedger(damaged, (r) => r.prepare(`update compactions set to_seq = 999999, to_msg_id = 'msg999999', n_messages_replaced = 999998`).run());
    const crafted = join(box.root, 'crafted.sqlite3');
    await writeLedger(crafted);
    const c = new Database(crafted);
    c.prepare(`update compactions set summary = '   '`).run();
    c.close();
    const expected: Array<[string, string]> = [
      [text, 'is not an SQLite database'],
      [foreign, 'is an SQLite database but not a pcodx ledger'],
      [damaged, 'is damaged: compactions row "cmp2" of session "alpha": its range msg2..msg999999 names a message that does not exist'],
      [crafted, 'is damaged: compactions row "cmp1" of session "main": its summary is blank'],
    ];
    for (const [file, message] of expected) {
      const before = sha(file);
      for (const form of [['show', '--session', 'beta'], ['ids'], ['turn', '--text', 'hi'], ['show', '--json']]) {
        const r = await same([...form, '--db', file]);
        expect(r.exitCode, `${file} ${form.join(' ')}`).toBe(1);
        expect(errorText(r, form)).toContain(message);
      }
      expect(sha(file)).toBe(before);
    }
  });

  it('an unknown session, a bad session name, a turn without text or with both flags: same message and exit code', async () => {
    const db = join(box.root, 'pcodx.sqlite3');
    await writeLedger(db);
    const before = sha(db);
    // A refused ledger request (an unknown session) exits 1, a usage error (the text flags, a
    // --session that cannot be a name) 2.
    const forms: Array<[string[], number]> = [
      [['show', '--session', 'nobody'], 1],
      [['ids', '--session', 'nobody', '--json'], 1],
      [['turn'], 2],
      [['turn', '--text', 'a', '--text-file', 'b'], 2],
      [['turn', '--text', 'hi', '--session', 'bad\u0007name'], 2],
      [['show', '--session', 'bad\u0007name'], 2],
      [['turn', '--text-file', join(box.root, 'no-such-file')], 2],
    ];
    for (const [form, code] of forms) {
      const r = await same([...form, '--db', db]);
      expect(r.exitCode, form.join(' ')).toBe(code);
      expect(errorText(r, form), form.join(' ')).not.toBe('');
    }
    expect(sha(db)).toBe(before);
  });

  it('forms the fast route does not take go to oclif: help, an unknown flag, a flag twice, an argument', async () => {
    const db = join(box.root, 'pcodx.sqlite3');
    await writeLedger(db);
    const help = await same(['show', '--help']);
    expect([help.exitCode, help.stdout]).toEqual([0, expect.stringContaining('Print the render')]);
    for (const form of [['show', '--bogus'], ['show', 'extra'], ['turn', '--roles', '--text', 'x']]) {
      const r = await same([...form, '--db', db]);
      expect(r.exitCode, form.join(' ')).toBe(2);
    }
    // A flag given twice is oclif's to judge, whatever it decides.
    await same(['ids', '--json', '--json', '--db', db]);
    // Global flags first with no command, a flag that is not global, a command this route does not run.
    for (const form of [['--db', db], ['--verbose', 'show'], ['--db', db, 'frobnicate'], ['--db', db, 'compact', '--from', 'msg1', '--to', 'msg1', '--summary', 's', '--dry-run']]) await same(form);
  });

  it('a --cwd that names no directory (missing, a file) is refused on both routes, for every pcodx command, before the ledger is touched', async () => {
    const db = join(box.root, 'pcodx.sqlite3');
    await writeLedger(db);
    const before = sha(db);
    const file = join(box.root, 'a-file');
    writeFileSync(file, 'x\n');
    const missing = join(box.root, 'no-such-dir');
    for (const [cwd, why] of [[missing, 'no such directory'], [file, 'not a directory']] as const) {
      for (const form of [['show', '--cwd', cwd], ['ids', `--cwd=${cwd}`], ['turn', '--text', 'hi', '--cwd', cwd]]) {
        const r = await same([...form, '--db', db]);
        expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }, form.join(' ')).toEqual({
          exitCode: 2,
          stdout: '',
          stderr: `error: --cwd ${cwd}: ${why}; see \`cordon pcodx ${form[0]} --help\`\n`,
        });
      }
      // The oclif-only commands, and the reference's spelling with the global flag first.
      for (const form of [['init', '--session', 'new', '--cwd', cwd], ['--cwd', cwd, 'init', '--session', 'new']]) {
        const r = await run([...form, '--db', db]);
        expect([r.exitCode, r.stderr], form.join(' ')).toEqual([2, `error: --cwd ${cwd}: ${why}; see \`cordon pcodx init --help\`\n`]);
      }
      const json = await same(['ids', '--cwd', cwd, '--json', '--db', db]);
      expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'CORDON_BAD_INPUT', details: {}, message: `--cwd ${cwd}: ${why}; see \`cordon pcodx ids --help\`` } });
    }
    expect(sha(db)).toBe(before);
    // An existing directory is taken as before.
    expect((await same(['ids', '--session', 'main', '--cwd', box.root, '--db', db])).exitCode).toBe(0);
  });

  it('without the codex plugin, `cordon pcodx show` is not a command, on either route', async () => {
    const bare = makeSandbox('cordon-pcodx-fast-bare-');
    try {
      const args = ['pcodx', 'show', '--db', join(bare.root, 'x.sqlite3')];
      const viaOclif = await pcodx(bare, undefined, args.slice(1), { env: OCLIF });
      const fast = await pcodx(bare, undefined, args.slice(1));
      expect([fast.exitCode, fast.stderr]).toEqual([viaOclif.exitCode, viaOclif.stderr]);
      expect(fast.exitCode).toBe(2);
      expect(fast.stderr).toContain('@cordon/codex');
    } finally {
      bare.cleanup();
    }
  });
});
