import { existsSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { linkCodex, pcodx, sha, tableRows } from './support.js';

let box: Sandbox;
let db: string;
beforeEach(() => {
  box = makeSandbox('cordon-pcodx-');
  linkCodex(box);
  db = join(box.root, 'ledger', 'pcodx.sqlite3');
});
afterEach(() => box.cleanup());

const ok = (r: { exitCode: number | null; stderr: string }) => expect(r.exitCode, r.stderr).toBe(0);

describe('cordon pcodx: recording and rendering', () => {
  it('init, record, turn, show and ids print the exact lines and bytes of the Rust pcodx, SichangHe/partial_compact_codex', async () => {
    const init = await pcodx(box, db, ['init', '--session', 'demo']);
    ok(init);
    expect(init.stdout).toBe(`session_id=demo\ndb_path=${db}\n`);

    const first = await pcodx(box, db, ['record', '--role', 'user', '--text', 'hello\n']);
    ok(first);
    expect(first.stdout).toBe('session_id=demo\nmessage_id=msg1\nvisible_ids=msg1\n');

    const file = join(box.root, 'reply.txt');
    writeFileSync(file, 'line one\r\nline two\r\n');
    const second = await pcodx(box, db, ['record', '--role', 'assistant', '--text-file', file, '--source', 'my-notes']);
    ok(second);
    expect(second.stdout).toBe('session_id=demo\nmessage_id=msg2\nvisible_ids=msg1,msg2\n');

    const third = await pcodx(box, db, ['record', '--role', 'tool', '--text-file', '-'], { input: '  piped output  ' });
    ok(third);
    expect(third.stdout).toBe('session_id=demo\nmessage_id=msg3\nvisible_ids=msg1,msg2,msg3\n');

    const turn = await pcodx(box, db, ['turn', '--text', 'what next?']);
    ok(turn);
    expect(turn.stderr).toBe('session_id=demo\nprompt_message_id=msg4\nfuture_context_source=pcodx-render\n');
    const render = 'hello\n\n<aboveturn id="msg1"/>\n\nline one\r\nline two\r\n\n<aboveturn id="msg2"/>\n\n  piped output  \n<aboveturn id="msg3"/>\n\nwhat next?\n<aboveturn id="msg4"/>';
    expect(turn.stdout).toBe(`${render}\n`);

    const show = await pcodx(box, db, ['show']);
    ok(show);
    expect(show.stdout).toBe(`${render}\n`);
    const ids = await pcodx(box, db, ['ids']);
    expect(ids.stdout).toBe('session_id=demo\nmsg1\nmsg2\nmsg3\nmsg4\n');

    expect(tableRows(db, 'select id, role, source from messages order by seq')).toEqual([
      { id: 'msg1', role: 'user', source: null },
      { id: 'msg2', role: 'assistant', source: 'my-notes' },
      { id: 'msg3', role: 'tool', source: null },
      { id: 'msg4', role: 'user', source: 'cli-turn' },
    ]);
  });

  it('prints the ids helper: 8 ids a line, and a line saying none are there yet', async () => {
    ok(await pcodx(box, db, ['init', '--session', 'h']));
    const empty = await pcodx(box, db, ['current-session-message-ids']);
    ok(empty);
    expect(empty.stdout).toBe(
      '# Visible message ids\n\nThese are the ids you can use as from_message_id and to_message_id; some hosts also list cmp... ids, which stand for earlier compactions.\n\n- (no message ids yet: record or send a message first)\n',
    );
    const raw = new Database(db);
    const insert = raw.prepare(`insert into messages (session_id, id, seq, role, text, created_at_ms) values ('h', ?, ?, 'assistant', 'x', 0)`);
    for (let i = 1; i <= 9; i++) insert.run(`msg${i}`, i);
    raw.close();
    const nine = await pcodx(box, db, ['current-session-message-ids']);
    expect(nine.stdout.split('\n').slice(-3)).toEqual(['- msg1, msg2, msg3, msg4, msg5, msg6, msg7, msg8', '- msg9', '']);
  });

  it('finds the database by --db, else PCODX_DB, else $XDG_DATA_HOME/pcodx/pcodx.sqlite3, creating parent dirs', async () => {
    const xdg = await pcodx(box, undefined, ['init', '--session', 'x']);
    ok(xdg);
    expect(xdg.stdout).toContain(`db_path=${join(box.env.XDG_DATA_HOME!, 'pcodx', 'pcodx.sqlite3')}\n`);
    const env = await pcodx(box, db, ['init', '--session', 'x']);
    expect(env.stdout).toContain(`db_path=${db}\n`);
    const flag = await pcodx(box, db, ['init', '--session', 'x', '--db', 'deep/er/flag.sqlite3'], { cwd: box.root });
    ok(flag);
    expect(flag.stdout).toContain(`db_path=${join(box.root, 'deep/er/flag.sqlite3')}\n`);
  });
});

describe('cordon pcodx: compaction', () => {
  async function seed(): Promise<void> {
    ok(await pcodx(box, db, ['init', '--session', 'c']));
    const raw = new Database(db);
    const insert = raw.prepare(`insert into messages (session_id, id, seq, role, text, created_at_ms, is_human_prompt, preserve_warning) values ('c', ?, ?, ?, ?, 0, ?, ?)`);
    const roles = ['user', 'assistant', 'tool', 'assistant', 'assistant', 'assistant'];
    roles.forEach((role, i) => insert.run(`msg${i + 1}`, i + 1, role, `t${i + 1}`, role === 'user' ? 1 : 0, role === 'user' ? 1 : 0));
    raw.close();
  }

  it('compact prints the ids, the count and the warning; --dry-run prints the render instead and stores nothing', async () => {
    await seed();
    const dry = await pcodx(box, db, ['compact', '--from', 'msg1', '--to', 'msg3', '--summary', 'set-up', '--dry-run']);
    ok(dry);
    expect(dry.stdout).toBe('set-up\n<aboveturn id="cmp1"/>\n\nt4\n<aboveturn id="msg4"/>\n\nt5\n<aboveturn id="msg5"/>\n\nt6\n<aboveturn id="msg6"/>\n');
    expect(dry.stderr).toBe(
      'session_id=c\ncompaction_id=cmp1\nn_messages_replaced=3\nwarning=range msg1..msg3 holds system, developer or user messages; its summary must preserve active instructions and human intent\nvisible_ids=cmp1,msg4,msg5,msg6\nstored=false\n',
    );
    expect(tableRows(db, 'select id from compactions')).toEqual([]);

    const real = await pcodx(box, db, ['compact', '--from', 'msg1', '--to', 'msg3', '--summary', 'set-up']);
    ok(real);
    expect(real.stdout).toBe(
      'session_id=c\ncompaction_id=cmp1\nn_messages_replaced=3\nwarning=range msg1..msg3 holds system, developer or user messages; its summary must preserve active instructions and human intent\nvisible_ids=cmp1,msg4,msg5,msg6\n',
    );
    const quiet = await pcodx(box, db, ['compact', '--from', 'msg4', '--to', 'msg4', '--summary', 'x']);
    expect(quiet.stdout).toBe('session_id=c\ncompaction_id=cmp2\nn_messages_replaced=1\nvisible_ids=cmp1,cmp2,msg5,msg6\n');
  });

  it('refuses with `error: …` and exit 1, storing nothing: tool group split, invisible endpoint, reversed range', async () => {
    await seed();
    const cases: Array<[string[], string]> = [
      [['--from', 'msg1', '--to', 'msg2'], 'error: range msg1..msg2 splits a tool_use/tool_result group at msg2; extend the range to msg3\n'],
      [['--from', 'msg3', '--to', 'msg4'], 'error: range msg3..msg4 splits a tool_use/tool_result group at msg3; extend the range start back to msg2 or start after msg3\n'],
      [['--from', 'msg1', '--to', 'msg40'], 'error: endpoint `msg40` is not visible in the current session; use visible msg/cmp endpoints\n'],
      [['--from', 'msg5', '--to', 'msg4'], 'error: `msg5` comes after `msg4`\n'],
      [['--from', 'msg5', '--to', 'msg5', '--summary', '   '], 'error: summary must be non-empty (range msg5..msg5)\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = await pcodx(box, db, ['compact', ...(args.includes('--summary') ? args : [...args, '--summary', 's'])]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toBe(stderr);
      expect(r.stdout).toBe('');
    }
    expect(tableRows(db, 'select id from compactions')).toEqual([]);
  });

  it('compact-many: one line per range in request order, summed count, per-range warnings; summaries keep = and ..', async () => {
    await seed();
    const r = await pcodx(box, db, ['compact-many', '--range', 'msg5..msg6=tail a=b..c', '--range', 'msg1..msg3=head']);
    ok(r);
    expect(r.stdout).toBe(
      'session_id=c\nn_ranges_compacted=2\nn_messages_replaced=5\ncompaction=cmp1 msg5..msg6\ncompaction=cmp2 msg1..msg3\nwarning[cmp2]=range msg1..msg3 holds system, developer or user messages; its summary must preserve active instructions and human intent\nvisible_ids=cmp2,msg4,cmp1\n',
    );
    expect((await pcodx(box, db, ['show'])).stdout).toBe('head\n<aboveturn id="cmp2"/>\n\nt4\n<aboveturn id="msg4"/>\n\ntail a=b..c\n<aboveturn id="cmp1"/>\n');
    const nested = await pcodx(box, db, ['compact-many', '--range', 'cmp2..cmp1=everything']);
    ok(nested);
    expect(nested.stdout).toContain('compaction=cmp3 cmp2..cmp1\n');
    expect(nested.stdout).toContain('visible_ids=cmp3\n');
  });

  it('compact-many stores all ranges or none, and checks its syntax first', async () => {
    await seed();
    const bad = await pcodx(box, db, ['compact-many', '--range', 'msg5..msg6=fine', '--range', 'msg4..msg5=overlaps']);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toBe('error: range starting at msg5 overlaps another requested range\n');
    expect(tableRows(db, 'select id from compactions')).toEqual([]);
    const syntax: Array<[string, string]> = [
      ['msg1..msg2', 'error: compact-many range must be FROM..TO=SUMMARY (got "msg1..msg2")\n'],
      ['msg1-msg2=s', 'error: compact-many range must be FROM..TO=SUMMARY, with `..` between FROM and TO (got "msg1-msg2=s")\n'],
      ['..msg2=s', 'error: compact-many range must include FROM and TO (got "..msg2=s")\n'],
      ['msg1..=s', 'error: compact-many range must include FROM and TO (got "msg1..=s")\n'],
      ['msg1..msg2=', 'error: compact-many range must include FROM, TO, and SUMMARY (got "msg1..msg2=")\n'],
    ];
    // Usage errors: exit 2, as every cordon usage error.
    for (const [spec, stderr] of syntax) {
      const r = await pcodx(box, db, ['compact-many', '--range', spec]);
      expect([r.exitCode, r.stderr]).toEqual([2, stderr]);
    }
  });

  it('uncompact restores the covered entries and reinstates nested compactions; show --roles labels each block', async () => {
    await seed();
    ok(await pcodx(box, db, ['compact', '--from', 'msg4', '--to', 'msg5', '--summary', 'inner']));
    ok(await pcodx(box, db, ['compact', '--from', 'cmp1', '--to', 'msg6', '--summary', 'outer']));
    const roles = await pcodx(box, db, ['show', '--roles']);
    expect(roles.stdout).toBe('[user]\nt1\n<aboveturn id="msg1"/>\n\n[assistant]\nt2\n<aboveturn id="msg2"/>\n\n[tool]\nt3\n<aboveturn id="msg3"/>\n\n[compaction msg4..msg6, as assistant]\nouter\n<aboveturn id="cmp2"/>\n');
    const inner = await pcodx(box, db, ['uncompact', 'cmp1']);
    expect([inner.exitCode, inner.stderr]).toEqual([1, 'error: compaction `cmp1` is inside `cmp2`; uncompact cmp2 first\n']);
    const undo = await pcodx(box, db, ['uncompact', 'cmp2']);
    ok(undo);
    expect(undo.stdout).toBe('session_id=c\nuncompacted=cmp2\nn_messages_restored=1\nreinstated=cmp1\nvisible_ids=msg1,msg2,msg3,cmp1,msg6\n');
    const again = await pcodx(box, db, ['uncompact', 'cmp2']);
    expect([again.exitCode, again.stderr]).toEqual([1, 'error: compaction `cmp2` was already undone (uncompacted) in session `c`\n']);
    const message = await pcodx(box, db, ['uncompact', 'msg3']);
    expect([message.exitCode, message.stderr]).toEqual([1, 'error: `msg3` is a message id, not a compaction id; uncompact takes a cmp id\n']);
    const unknown = await pcodx(box, db, ['uncompact', 'cmp9']);
    expect([unknown.exitCode, unknown.stderr]).toEqual([1, 'error: unknown compaction `cmp9` in session `c`\n']);
    const covered = await pcodx(box, db, ['compact', '--from', 'msg4', '--to', 'msg6', '--summary', 's']);
    expect([covered.exitCode, covered.stderr]).toEqual([1, 'error: endpoint `msg4` is not visible in the current session; it is covered by cmp1; use cmp1 as the endpoint\n']);
    const next = await pcodx(box, db, ['compact', '--from', 'msg6', '--to', 'msg6', '--summary', 'new']);
    expect(next.stdout).toContain('compaction_id=cmp3\n');
  });

  it('fires the compact hook of installed plugins: a tap amends the summary or refuses the plan', async () => {
    linkCodex(box, true);
    await seed();
    const refused = await pcodx(box, db, ['compact', '--from', 'msg5', '--to', 'msg6', '--summary', 'FORBIDDEN words']);
    expect([refused.exitCode, refused.stderr]).toEqual([1, 'error: plugin "compact-guard" failed in hook "compact": summary mentions FORBIDDEN\n']);
    expect(tableRows(db, 'select id from compactions')).toEqual([]);
    ok(await pcodx(box, db, ['compact', '--from', 'msg5', '--to', 'msg6', '--summary', 'fine']));
    expect((await pcodx(box, db, ['show'])).stdout.endsWith('fine [guarded]\n<aboveturn id="cmp1"/>\n')).toBe(true);
  });
});

describe('cordon pcodx: sessions', () => {
  it('read and compact commands need a session; an unknown --session is an error', async () => {
    for (const cmd of [['show'], ['ids'], ['current-session-message-ids'], ['compact', '--from', 'msg1', '--to', 'msg1', '--summary', 's'], ['compact-many', '--range', 'msg1..msg1=s'], ['uncompact', 'cmp1']]) {
      const r = await pcodx(box, db, cmd);
      // No ledger yet: refused before anything is created.
      expect([r.exitCode, r.stderr], cmd.join(' ')).toEqual([1, `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`]);
      expect(existsSync(db)).toBe(false);
    }
    ok(await pcodx(box, db, ['init', '--session', 'real']));
    const unknown = await pcodx(box, db, ['show', '--session', 'ghost']);
    expect([unknown.exitCode, unknown.stderr]).toEqual([1, 'error: unknown session `ghost` (`cordon pcodx sessions` lists the sessions of this ledger)\n']);
    expect(tableRows(db, 'select id from sessions')).toEqual([{ id: 'real' }]);
  });

  it('sessions lists the names the unknown-session error points at, the last-written first; a missing ledger is not created', async () => {
    const none = await pcodx(box, db, ['sessions']);
    expect([none.exitCode, none.stderr]).toEqual([1, `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`]);
    expect(existsSync(db)).toBe(false);
    ok(await pcodx(box, db, ['init', '--session', 'first']));
    ok(await pcodx(box, db, ['init', '--session', 'second']));
    ok(await pcodx(box, db, ['record', '--session', 'first', '--role', 'user', '--text', 'again']));
    const listed = await pcodx(box, db, ['sessions']);
    expect([listed.exitCode, listed.stdout]).toEqual([0, 'first\nsecond\n']);
    expect(JSON.parse((await pcodx(box, db, ['sessions', '--json'])).stdout)).toEqual({ lines: ['first', 'second'] });
  });

  it('creating commands reuse the last-written session, or make ses<hex>-<pid>; --session upserts and refreshes cwd', async () => {
    const made = await pcodx(box, db, ['init']);
    ok(made);
    const id = /^session_id=(ses[0-9a-f]+-\d+)$/m.exec(made.stdout)![1];
    expect(id).toBeDefined();
    const rec = await pcodx(box, db, ['record', '--role', 'user', '--text', 'x']);
    expect(rec.stdout).toContain(`session_id=${id}\n`);
    ok(await pcodx(box, db, ['init', '--session', 'named', '--cwd', box.home]));
    ok(await pcodx(box, db, ['init', '--session', 'named', '--cwd', box.root]));
    expect(tableRows(db, `select cwd from sessions where id = 'named'`)).toEqual([{ cwd: box.root }]);
    // Writing to the older session makes it the last-written one.
    ok(await pcodx(box, db, ['record', '--session', id!, '--role', 'user', '--text', 'y']));
    expect((await pcodx(box, db, ['ids'])).stdout.split('\n')[0]).toBe(`session_id=${id}`);
  });

  it('resume takes exactly one of --session / --last, never creates a session, records an optional prompt', async () => {
    for (const args of [[], ['--session', 'a', '--last']]) {
      const r = await pcodx(box, db, ['resume', ...args]);
      expect([r.exitCode, r.stderr]).toEqual([2, 'error: pass exactly one of --session or --last to resume\n']);
    }
    const none = await pcodx(box, db, ['resume', '--last']);
    expect([none.exitCode, none.stderr]).toEqual([1, `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`]);
    expect(existsSync(db)).toBe(false);
    ok(await pcodx(box, db, ['init', '--session', 'other']));
    const ghost = await pcodx(box, db, ['resume', '--session', 'ghost']);
    expect([ghost.exitCode, ghost.stderr]).toEqual([1, 'error: unknown session `ghost` (`cordon pcodx sessions` lists the sessions of this ledger)\n']);
    expect(tableRows(db, 'select id from sessions')).toEqual([{ id: 'other' }]);

    ok(await pcodx(box, db, ['record', '--session', 'r', '--role', 'user', '--text', 'earlier']));
    const r = await pcodx(box, db, ['resume', '--last', '--text', 'back again'], { input: '/exit\n' });
    ok(r);
    expect(r.stderr).toBe('prompt_message_id=msg2\nsession_id=r\nvisible_ids=msg1,msg2\n');
    expect(r.stdout).toBe(
      'earlier\n<aboveturn id="msg1"/>\n\nback again\n<aboveturn id="msg2"/>\npcodx interactive\nsession_id=r\ncommands: /help /ids /show /message-ids /record /record-file /compact /uncompact /turn /exit; other lines are user turns\nbye\n',
    );
    expect(tableRows(db, `select source from messages where id = 'msg2'`)).toEqual([{ source: 'cli-resume' }]);
  });
});

describe('cordon pcodx: text input rules', () => {
  it('refuses both flags, neither, empty text, unreadable or non-UTF-8 files; stores nothing', async () => {
    ok(await pcodx(box, db, ['init', '--session', 't']));
    const bin = join(box.root, 'latin1.txt');
    writeFileSync(bin, Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    const empty = join(box.root, 'empty.txt');
    writeFileSync(empty, '');
    const cases: Array<[string[], string]> = [
      [['record', '--role', 'user', '--text', 'a', '--text-file', empty], 'error: pass only one of --text or --text-file\n'],
      [['record', '--role', 'user'], 'error: pass --text TEXT or --text-file PATH (- for stdin)\n'],
      [['turn'], 'error: pass --text TEXT or --text-file PATH (- for stdin)\n'],
      [['record', '--role', 'user', '--text', ''], 'error: text is empty\n'],
      [['turn', '--text-file', empty], `error: text is empty (${empty})\n`],
      [['record', '--role', 'user', '--text-file', join(box.root, 'missing.txt')], `error: cannot read --text-file ${join(box.root, 'missing.txt')}: no such file\n`],
      [['record', '--role', 'user', '--text-file', box.root], `error: cannot read --text-file ${box.root}: is a directory\n`],
      [['record', '--role', 'user', '--text-file', bin], `error: ${bin} is not valid UTF-8 text\n`],
      [['resume', '--last', '--text-file', '-'], 'error: --text-file - is not accepted here: stdin belongs to the interactive loop; pass a file path or --text\n'],
      [['interactive', '--text-file', '-'], 'error: --text-file - is not accepted here: stdin belongs to the interactive loop; pass a file path or --text\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = await pcodx(box, db, args, { input: 'stdin text\n' });
      expect([r.exitCode, r.stderr], args.join(' ')).toEqual([2, stderr]);
    }
    expect(tableRows(db, 'select id from messages')).toEqual([]);
    // A --db that cannot be read is named with what is wrong, in words (not EISDIR and Node's text).
    const dir = await pcodx(box, box.root, ['show']);
    expect([dir.exitCode, dir.stderr]).toEqual([1, `error: ledger database ${box.root} is a directory, not a file; it was left unchanged: point --db / PCODX_DB at a ledger file\n`]);
    // A kernel's file says its size is 0: it was taken for an empty file, a ledger not made yet
    // (`show`) or one to make (`record` then failed in SQLite with SQLITE_IOERR_CORRUPTFS).
    for (const args of [['show'], ['record', '--role', 'user', '--text', 'x']]) {
      const status = await pcodx(box, '/proc/self/status', args);
      expect([status.exitCode, status.stderr]).toEqual([1, 'error: ledger database /proc/self/status is a file the kernel makes up as it is read (its size says 0, yet it has content), not a ledger; it was left unchanged: point --db / PCODX_DB at a ledger file\n']);
      const mem = await pcodx(box, '/proc/self/mem', args);
      expect([mem.exitCode, mem.stderr]).toEqual([1, 'error: cannot read ledger database /proc/self/mem: input/output error; it was left unchanged: point --db / PCODX_DB at a ledger file\n']);
    }
    const role = await pcodx(box, db, ['record', '--role', 'robot', '--text', 'x']);
    expect(role.exitCode).toBe(2);
    // oclif's parse errors print as pcodx's own usage errors do, in the host's words.
    expect(role.stderr).toBe('error: --role: expected one of system, developer, user, assistant, tool but received: "robot"; see `cordon pcodx record --help`\n');
    const missing = await pcodx(box, db, ['compact', '--session', 't', '--from', 'msg1']);
    expect([missing.exitCode, missing.stderr]).toEqual([2, 'error: missing required flag --summary; missing required flag --to; see `cordon pcodx compact --help`\n']);
  });

  // `--text-file /dev/zero` (or any file or pipe without an end) was read until memory ran out
  // (3.5 GB after 30 s), and a text above what one JavaScript string holds (a 600 MB file of NUL
  // bytes, valid UTF-8) was refused as "not valid UTF-8 text".
  it('refuses a text above 256 MiB from a device, a file or stdin, naming it, before reading past the bound; stores nothing', async () => {
    ok(await pcodx(box, db, ['record', '--session', 'z', '--role', 'user', '--text', 'kept']));
    const sparse = join(box.root, 'sparse.txt');
    writeFileSync(sparse, '');
    truncateSync(sparse, 256 * 1024 * 1024 + 1);
    const bound = 'holds more than 268435456 bytes (256 MiB), the most pcodx reads as one message; nothing was recorded\n';
    for (const [args, input, stderr] of [
      [['record', '--role', 'user', '--text-file', '/dev/zero'], undefined, `error: --text-file /dev/zero ${bound}`],
      [['turn', '--text-file', sparse], undefined, `error: --text-file ${sparse} ${bound}`],
      [['record', '--role', 'user', '--text-file', '-'], Buffer.alloc(256 * 1024 * 1024 + 1, 'a'), `error: stdin ${bound}`],
    ] as const) {
      const r = await pcodx(box, db, ['--session', 'z', ...args], { input });
      expect([r.exitCode, r.stderr], args.join(' ')).toEqual([2, stderr]);
    }
    // The interactive loop's /record-file reads the same way; the loop goes on.
    const loop = await pcodx(box, db, ['interactive', '--session', 'z'], { input: '/record-file user /dev/zero\n/exit\n' });
    expect([loop.exitCode, loop.stderr]).toEqual([0, `error: /dev/zero ${bound}`]);
    expect(loop.stdout).toMatch(/\nbye\n$/);
    expect(tableRows(db, 'select text from messages')).toEqual([{ text: 'kept' }]);
  }, 60_000);

  it('keeps file bytes exactly: BOM, CRLF, no final newline', async () => {
    const file = join(box.root, 'bom.txt');
    writeFileSync(file, Buffer.from('\uFEFFa\r\nb', 'utf8'));
    ok(await pcodx(box, db, ['record', '--session', 'b', '--role', 'user', '--text-file', file]));
    const [row] = tableRows(db, 'select text from messages');
    expect(Buffer.from(row!.text as string, 'utf8')).toEqual(Buffer.from('\uFEFFa\r\nb', 'utf8'));
  });
});

describe('cordon pcodx: prompts, refusals of the database, many processes', () => {
  it('prompts lists the fragments and prints one; an unknown name is an error', async () => {
    const list = await pcodx(box, db, ['prompts']);
    ok(list);
    expect(list.stdout.trim().split('\n')).toEqual([
      'current-session-message-ids-tool-description.md',
      'current-session-message-ids.md',
      'partial-compact-arg-ranges.md',
      'partial-compact-instruction-pointer.md',
      'partial-compact-instruction-tool-description.md',
      'partial-compact-instruction.md',
      'partial-compact-range-from-message-id.md',
      'partial-compact-range-summary.md',
      'partial-compact-range-to-message-id.md',
      'partial-compact-reminder.md',
      'partial-compact-tool-description.md',
      'tui-partial-compact.md',
    ]);
    expect((await pcodx(box, db, ['prompts', 'partial-compact-reminder.md'])).stdout).toBe('{{CONTEXT_STATUS}}\n');
    const unknown = await pcodx(box, db, ['prompts', 'nope.md']);
    expect([unknown.exitCode, unknown.stderr]).toEqual([2, 'error: unknown prompt `nope.md`\n']);
  });

  it('a ledger with a newer schema version or a corrupt file: clear error, file unchanged', async () => {
    ok(await pcodx(box, db, ['record', '--session', 's', '--role', 'user', '--text', 'x']));
    const raw = new Database(db);
    raw.prepare(`update schema_meta set value = '99' where key = 'schema_version'`).run();
    raw.close();
    const before = sha(db);
    const newer = await pcodx(box, db, ['show']);
    expect(newer.exitCode).toBe(1);
    expect(newer.stderr).toBe(`error: ledger database ${db} has schema version 99, newer than this cordon understands (2); it was left unchanged: upgrade cordon or use another --db\n`);
    expect(sha(db)).toBe(before);

    const junk = join(box.root, 'junk.sqlite3');
    writeFileSync(junk, 'not a database at all');
    const junkBefore = sha(junk);
    const corrupt = await pcodx(box, junk, ['init']);
    expect(corrupt.exitCode).toBe(1);
    expect(corrupt.stderr).toContain(`error: ledger database ${junk} is not an SQLite database`);
    expect(sha(junk)).toBe(junkBefore);
    expect(corrupt.stdout).toBe('');
  });

  it('8 `record` processes at once into one session: nothing lost, unique ids', async () => {
    ok(await pcodx(box, db, ['init', '--session', 'crowd']));
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => pcodx(box, db, ['record', '--session', 'crowd', '--role', 'user', '--text', `from ${i}`])));
    for (const r of runs) ok(r);
    const ids = runs.map((r) => /^message_id=(msg\d+)$/m.exec(r.stdout)![1]);
    expect(new Set(ids).size).toBe(8);
    expect(tableRows(db, 'select id, text from messages order by seq').map((m) => m.id)).toEqual(['msg1', 'msg2', 'msg3', 'msg4', 'msg5', 'msg6', 'msg7', 'msg8']);
    expect(new Set(tableRows(db, 'select text from messages').map((m) => m.text))).toEqual(new Set(Array.from({ length: 8 }, (_, i) => `from ${i}`)));
  }, 120_000);
});
