import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, makeSandbox, runProcess, type Sandbox } from '../../../../test/support/cli.js';
import { makeReferenceLedger } from '../../../../packages/host/test/ledger/reference-files.js';
import { linkCodex, pcodx, sha, tableRows } from './support.js';

const PCODX_BIN = join(REPO_ROOT, 'plugins/codex/bin/pcodx.js');
let box: Sandbox;
beforeEach(() => {
  box = makeSandbox('cordon-pcodx-files-');
  linkCodex(box);
});
afterEach(() => box.cleanup());

/** `cordon pcodx ARGS` with no PCODX_DB: only flags name the ledger. */
const cordonPcodx = (args: string[], env: Record<string, string> = {}) => pcodx(box, undefined, args, { env: { PCODX_DB: '', ...env } });
/** The `pcodx` bin with the same environment. */
const pcodxBin = (args: string[]) => runProcess([process.execPath, PCODX_BIN, ...args], { env: { ...box.env, PCODX_DB: '' } });

describe('global flags before the command, as the reference writes them', () => {
  for (const [name, run] of [
    ['cordon pcodx', cordonPcodx],
    ['the pcodx bin', pcodxBin],
  ] as const) {
    it(`${name}: \`--db D --session S init\` runs init with those flags; a spelling it cannot run is exit 2 with a message`, async () => {
      const db = join(box.root, `${name.replace(/\W/g, '-')}`, 'pcodx.sqlite3');
      const init = await run(['--db', db, '--session', 'S', 'init']);
      expect([init.exitCode, init.stdout, init.stderr]).toEqual([0, `session_id=S\ndb_path=${db}\n`, '']);
      const recorded = await run([`--db=${db}`, '--session=S', 'record', '--role', 'user', '--text', 'hello']);
      expect([recorded.exitCode, recorded.stdout]).toEqual([0, 'session_id=S\nmessage_id=msg1\nvisible_ids=msg1\n']);
      const show = await run(['--session', 'S', '--db', db, 'show']);
      expect([show.exitCode, show.stdout]).toEqual([0, 'hello\n<aboveturn id="msg1"/>\n']);

      const other = join(box.root, 'never', 'pcodx.sqlite3');
      const cases: Array<[string[], string]> = [
        [['--db', other], 'error: name a command after the global flags, e.g. pcodx --db'],
        [['--db', other, '--session'], 'error: --session needs a value'],
        [['--verbose', 'init'], 'error: "--verbose" is not a global flag of pcodx (those are --db, --session and --cwd)'],
        [['--db', other, 'frobnicate'], 'error: "frobnicate" is not a pcodx command'],
      ];
      for (const [args, message] of cases) {
        const r = await run(args);
        expect([r.exitCode, r.stdout], args.join(' ')).toEqual([2, '']);
        expect(r.stderr).toContain(message);
      }
      expect(existsSync(join(box.root, 'never'))).toBe(false);
      expect(tableRows(db, 'select session_id, text from messages')).toEqual([{ session_id: 'S', text: 'hello' }]);
    });

    // A mistyped command was refused with no hint, where the host's own commands name the one
    // meant (`cordon chek` → "Did you mean `cordon check`?"); the host lends its choice
    // (api.services.names.closest) and pcodx words it the same way, exit 2 as before.
    it(`${name}: a mistyped command names the one meant, as the host's commands do`, async () => {
      const other = join(box.root, 'never', 'pcodx.sqlite3');
      const list = 'Run `cordon pcodx --help` for the list.';
      const cases: Array<[string[], string]> = [
        [['recrod', '--role', 'user', '--text', 'x'], `error: "recrod" is not a pcodx command. Did you mean \`cordon pcodx record\`? ${list}\n`],
        [['--db', other, 'shwo'], `error: "shwo" is not a pcodx command. Did you mean \`cordon pcodx show\`? ${list}\n`],
        [['uncompcat', 'cmp1'], `error: "uncompcat" is not a pcodx command. Did you mean \`cordon pcodx uncompact\`? ${list}\n`],
        // The nearest, not a name it starts with (`compact` is five edits away, `compact-many` one).
        [['compact-mnay', '--range', '1..2=x'], `error: "compact-mnay" is not a pcodx command. Did you mean \`cordon pcodx compact-many\`? ${list}\n`],
        [['frobnicate'], `error: "frobnicate" is not a pcodx command. ${list}\n`],
      ];
      for (const [args, stderr] of cases) {
        const r = await run(args);
        expect([r.exitCode, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', stderr]);
      }
      expect(existsSync(join(box.root, 'never'))).toBe(false);
    });
  }

  // A word after a pcodx command that takes none (`pcodx ids extra`, which oclif reads as the
  // command id `pcodx:ids:extra`) was refused with "It comes with the @cordon/codex plugin: \`cordon
  // plugins link …\`", though the plugin was installed; now it is named as such words are for the
  // host's own commands (`cordon check extra`), exit 2, nothing created.
  it('a word a pcodx command does not take is named, not taken for a missing plugin', async () => {
    const db = join(box.root, 'never', 'pcodx.sqlite3');
    for (const command of ['ids', 'show', 'sessions', 'init']) {
      const r = await cordonPcodx([command, 'extra', '--db', db]);
      const stderr = r.stderr.replace(/\s*\n\s*/g, ' ');
      expect([r.exitCode, r.stdout], command).toEqual([2, '']);
      expect(stderr, command).not.toContain('plugin');
      expect(stderr, command).toContain(`\`cordon pcodx ${command}\` takes no argument \`extra\``);
    }
    expect(existsSync(join(box.root, 'never'))).toBe(false);
  });
});

describe('a refusal writes nothing', () => {
  it('resume without a selector, and every command that needs an existing session, create no directory and no file', async () => {
    const dir = join(box.root, 'missing');
    const db = join(dir, 'pcodx.sqlite3');
    const refusals: Array<[string[], string]> = [
      [['resume', '--db', db], 'error: pass exactly one of --session or --last to resume\n'],
      [['resume', '--db', db, '--session', 'a', '--last'], 'error: pass exactly one of --session or --last to resume\n'],
      [['resume', '--db', db, '--last'], `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`],
      [['resume', '--db', db, '--session', 'a', '--text', 'hi'], `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`],
      [['show', '--db', db], `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`],
      [['ids', '--db', db, '--session', 'a'], `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`],
      [['current-session-message-ids', '--db', db], `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`],
      [['compact', '--db', db, '--from', 'msg1', '--to', 'msg1', '--summary', 's'], `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`],
      [['compact-many', '--db', db, '--range', 'msg1..msg1=s'], `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`],
      [['uncompact', '--db', db, 'cmp1'], `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`],
      [['model-turn', '--db', db, '--session', 'a', '--text', 'hi', '--codex-bin', join(box.root, 'no-codex')], `error: there is no ledger at ${db} yet (run \`cordon pcodx init\` first); nothing was created\n`],
    ];
    for (const [args, stderr] of refusals) {
      const r = await cordonPcodx(args);
      // A usage error exits 2, a refused ledger request 1.
      const code = stderr.includes('pass exactly one') ? 2 : 1;
      expect([r.exitCode, r.stdout, r.stderr], args.join(' ')).toEqual([code, '', stderr]);
      expect(existsSync(dir), args.join(' ')).toBe(false);
    }
  });

  // The host refuses a report or telemetry store inside an envelope's .cordon/ (a file it did not
  // write there stops check, status and arm); pcodx's ledger, usage log and context file are files
  // the user names for cordon to write all the same.
  it('a ledger, usage log or context file inside an envelope\'s .cordon/ is refused, exit 2, on both routes, and nothing is written there', async () => {
    const repo = box.dir('repo');
    execFileSync('git', ['init', '-q', repo], { env: box.env });
    const state = join(repo, '.cordon');
    mkdirSync(state);
    symlinkSync(state, join(box.root, 'state-link'));
    const why = `it is inside ${state}, the envelope's state directory, where cordon keeps only its own files (a file it did not write there stops \`cordon check\`, \`status\` and \`arm\` until it is removed); name a file outside .cordon/. Nothing was run or written\n`;
    for (const route of [{}, { CORDON_NO_FAST_ROUTE: '1' }]) {
      const cases: Array<[string[], Record<string, string>, string]> = [
        [['--db', join(state, 'l.sqlite3'), 'init'], {}, `--db ${join(state, 'l.sqlite3')}`],
        [['--db', join(box.root, 'state-link', 'l.sqlite3'), 'record', '--role', 'user', '--text', 'x'], {}, `--db ${join(box.root, 'state-link', 'l.sqlite3')}`],
        [['--db', 'sub/../.cordon/l.sqlite3', 'show'], {}, '--db sub/../.cordon/l.sqlite3'],
        [['init'], { PCODX_DB: '.cordon/l.sqlite3' }, 'PCODX_DB=.cordon/l.sqlite3'],
      ];
      for (const [args, env, named] of cases) {
        const r = await pcodx(box, undefined, args, { env: { PCODX_DB: '', ...route, ...env }, cwd: repo });
        expect([args.join(' '), r.exitCode, r.stdout, r.stderr]).toEqual([args.join(' '), 2, '', `error: ${named}: ${why}`]);
      }
    }
    // A usage log or a context file of a turn: refused before the turn (no codex needed to get there).
    const db = join(box.root, 'pcodx.sqlite3');
    expect((await cordonPcodx(['init', '--db', db, '--session', 'm'])).exitCode).toBe(0);
    const turn = ['model-turn', '--db', db, '--session', 'm', '--text', 'hi', '--codex-bin', join(box.root, 'no-codex')];
    const usage = await pcodx(box, undefined, [...turn, '--usage-log', '.cordon/u.jsonl'], { env: { PCODX_DB: '' }, cwd: repo });
    expect([usage.exitCode, usage.stderr]).toEqual([2, `error: --usage-log .cordon/u.jsonl: ${why}`]);
    const usageEnv = await pcodx(box, undefined, turn, { env: { PCODX_DB: '', PCODX_USAGE_LOG: join(state, 'u.jsonl') }, cwd: repo });
    expect([usageEnv.exitCode, usageEnv.stderr]).toEqual([2, `error: PCODX_USAGE_LOG=${join(state, 'u.jsonl')}: ${why}`]);
    const context = await pcodx(box, undefined, [...turn, '--context-out', '.cordon/context.json'], { env: { PCODX_DB: '' }, cwd: repo });
    expect([context.exitCode, context.stderr]).toEqual([2, `error: --context-out ${join(state, 'context.json')}: ${why}`]);
    expect(readdirSync(state)).toEqual([]);
    expect(tableRows(db, 'select count(*) as n from messages')).toEqual([{ n: 0 }]);
    // Outside .cordon/ the same repository takes a ledger as before.
    const beside = await pcodx(box, undefined, ['--db', 'ledger.sqlite3', 'init'], { env: { PCODX_DB: '' }, cwd: repo });
    expect(beside.exitCode, beside.stderr).toBe(0);
  });

  // `--context-out` in a directory that does not exist, or a file that cannot be made there
  // (/proc/self/x), printed Node's own words (`error: ENOENT: no such file or directory, open
  // '/proc/self/x'`), after the app-server had started. Now a missing directory is refused before
  // anything runs (exit 2) and a file that cannot be made names the flag and the file (exit 1);
  // the turn is not run and nothing is recorded either way.
  it('a --context-out that cannot be written is named, with nothing run or recorded', async () => {
    const db = join(box.root, 'ctx.sqlite3');
    expect((await pcodx(box, db, ['record', '--session', 'm', '--role', 'user', '--text', 'q'])).exitCode).toBe(0);
    const started = join(box.root, 'started');
    const codex = join(box.root, 'fake-codex');
    // A stdio app-server that answers every request with an empty result, noting that it ran.
    const script = [
      `require('node:fs').writeFileSync(${JSON.stringify(started)}, '');`,
      `require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {`,
      `  const m = JSON.parse(line);`,
      `  if (m.id !== undefined) process.stdout.write(JSON.stringify({ id: m.id, result: m.method === 'thread/start' ? { thread: { id: 't1' } } : {} }) + '\\n');`,
      `});`,
    ].join('\n');
    writeFileSync(codex, `#!${process.execPath}\n${script}\n`, { mode: 0o755 });
    const turn = ['model-turn', '--session', 'm', '--text', 'hi', '--codex-bin', codex, '--timeout-seconds', '30'];
    const missing = join(box.root, 'no-such-dir', 'ctx.json');
    const early = await pcodx(box, db, [...turn, '--context-out', missing]);
    expect([early.exitCode, early.stdout, early.stderr]).toEqual([2, '', `error: --context-out ${missing}: its directory ${join(box.root, 'no-such-dir')}: no such directory; nothing was run\n`]);
    expect(existsSync(started)).toBe(false);
    const late = await pcodx(box, db, [...turn, '--context-out', '/proc/self/ctx.json']);
    expect([late.exitCode, late.stdout]).toEqual([1, '']);
    expect(late.stderr).toMatch(/^error: cannot write --context-out \/proc\/self\/ctx\.json: [^\n]+; the turn was not run and nothing was recorded\n$/);
    expect(tableRows(db, 'select id, text from messages')).toEqual([{ id: 'msg1', text: 'q' }]);
  }, 60_000);

  it('a --db or PCODX_DB that is a URL is refused as a usage error, on both routes, creating no directory of its scheme', async () => {
    const cwd = box.dir('work');
    const message = 'error: --db mysql://x: unsupported scheme mysql; the ledger is an SQLite file: give its path\n';
    for (const env of [{ PCODX_DB: '' }, { PCODX_DB: '', CORDON_NO_FAST_ROUTE: '1' }]) {
      for (const args of [['record', '--role', 'user', '--text', 'x'], ['show'], ['turn', '--text', 'x'], ['init'], ['record', '--role', 'tool', '--text', 'x']]) {
        const r = await pcodx(box, undefined, ['--db', 'mysql://x', ...args], { env, cwd });
        expect([args.join(' '), r.exitCode, r.stdout, r.stderr]).toEqual([args.join(' '), 2, '', message]);
      }
      const fromEnv = await pcodx(box, undefined, ['show'], { env: { ...env, PCODX_DB: 'MySQL://root:hunter2@db/x' }, cwd });
      expect([fromEnv.exitCode, fromEnv.stderr]).toEqual([2, 'error: PCODX_DB=mysql://***@db/x: unsupported scheme mysql; the ledger is an SQLite file: give its path\n']);
    }
    expect(readdirSync(cwd)).toEqual([]);
  });

  // `--db ""` (what `--db "$UNSET"` passes) was taken for no flag: init, record and turn wrote
  // into the default ledger ($XDG_DATA_HOME/pcodx/pcodx.sqlite3), which the user never named.
  it('an empty --db or --usage-log is refused as a usage error, on both routes, and the default ledger is not created', async () => {
    const cwd = box.dir('work');
    const message = 'error: --db "": an empty path names no file; give the path of the ledger, or leave --db out for the default\n';
    const defaultLedger = join(box.env.XDG_DATA_HOME!, 'pcodx', 'pcodx.sqlite3');
    for (const env of [{ PCODX_DB: '' }, { PCODX_DB: '', CORDON_NO_FAST_ROUTE: '1' }]) {
      for (const args of [['--db', '', 'init'], ['init', '--db='], ['record', '--db', '', '--role', 'user', '--text', 'x'], ['show', '--db='], ['turn', '--db', '', '--text', 'x'], ['ids', '--db', '']]) {
        const r = await pcodx(box, undefined, [...args, '--session', 's'], { env, cwd });
        expect([args.join(' '), r.exitCode, r.stdout, r.stderr]).toEqual([args.join(' '), 2, '', message]);
      }
    }
    const db = join(box.root, 'usage.sqlite3');
    expect((await pcodx(box, db, ['init', '--session', 's'], { cwd })).exitCode).toBe(0);
    const log = await pcodx(box, db, ['model-turn', '--session', 's', '--text', 'x', '--usage-log', '', '--codex-bin', join(box.root, 'no-codex')], { cwd });
    expect([log.exitCode, log.stderr]).toEqual([2, 'error: --usage-log "": an empty path names no file; give the path of the usage log, or leave --usage-log out for the default\n']);
    expect(existsSync(defaultLedger)).toBe(false);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('a session name or a tool message the ledger would refuse is refused before a ledger, or a session, is created', async () => {
    const dir = join(box.root, 'missing');
    const db = join(dir, 'pcodx.sqlite3');
    const bad = 'bad\u0007name';
    const toolFirst = 'error: a tool message records the result of a call: record the assistant message that made the call first (the session has no messages yet)\n';
    const refusals: Array<[string[], string]> = [
      [['init', '--db', db, '--session', bad], `error: --session "bad\\u0007name": not a valid session name: use 1-200 characters without control characters\n`],
      [['record', '--db', db, '--session', bad, '--role', 'user', '--text', 'x'], `error: --session "bad\\u0007name": not a valid session name: use 1-200 characters without control characters\n`],
      [['turn', '--db', db, '--session', '', '--text', 'x'], 'error: --session "": not a valid session name: use 1-200 characters without control characters\n'],
      [['interactive', '--db', db, '--session', 'x'.repeat(201)], `error: --session "${'x'.repeat(201)}": not a valid session name: use 1-200 characters without control characters\n`],
      // The commands that need a ledger that exists say so only for a name that can be one.
      ...[['show'], ['ids'], ['current-session-message-ids'], ['compact', '--from', 'msg1', '--to', 'msg2', '--summary', 's'], ['compact-many', '--range', 'msg1..msg2=s'], ['uncompact', 'cmp1'], ['resume'], ['model-turn', '--text', 'x']].map(
        (command): [string[], string] => [[...command, '--db', db, '--session', bad], `error: --session "bad\\u0007name": not a valid session name: use 1-200 characters without control characters\n`],
      ),
      [['record', '--db', db, '--role', 'tool', '--text', 'result'], toolFirst],
      [['record', '--db', db, '--session', 'n', '--role', 'tool', '--text', 'result'], toolFirst],
    ];
    for (const [args, stderr] of refusals) {
      const r = await cordonPcodx(args);
      // Both are usage errors (a name that cannot be one, a tool message first): exit 2.
      expect([r.exitCode, r.stdout, r.stderr], args.join(' ')).toEqual([2, '', stderr]);
      expect(existsSync(dir), args.join(' ')).toBe(false);
    }
    // In a ledger that exists, a tool message for a session that does not creates no session.
    expect((await cordonPcodx(['init', '--db', db, '--session', 'first'])).exitCode).toBe(0);
    const r = await cordonPcodx(['record', '--db', db, '--session', 'second', '--role', 'tool', '--text', 'result']);
    expect([r.exitCode, r.stderr]).toEqual([2, toolFirst]);
    expect(tableRows(db, 'select id from sessions')).toEqual([{ id: 'first' }]);
    // In a ledger that exists, on the fast route and through oclif alike: a name that cannot be
    // one is a usage error (2) naming --session, an unknown session a refused request (1).
    for (const env of [{}, { CORDON_NO_FAST_ROUTE: '1' }] as Array<Record<string, string>>) {
      for (const verb of ['show', 'ids', 'turn']) {
        const extra = verb === 'turn' ? ['--text', 'x'] : [];
        const invalid = await cordonPcodx([verb, '--db', db, '--session', 'bad\nname', ...extra], env);
        expect([verb, invalid.exitCode, invalid.stderr]).toEqual([verb, 2, 'error: --session "bad\\nname": not a valid session name: use 1-200 characters without control characters\n']);
      }
      const unknown = await cordonPcodx(['show', '--db', db, '--session', 'nosuch'], env);
      expect([unknown.exitCode, unknown.stderr]).toEqual([1, 'error: unknown session `nosuch` (`cordon pcodx sessions` lists the sessions of this ledger)\n']);
    }
  });

  it('model-turn that fails (no codex to run) leaves no usage log and no directory for one', async () => {
    const db = join(box.root, 'pcodx.sqlite3');
    expect((await cordonPcodx(['init', '--db', db, '--session', 'm'])).exitCode).toBe(0);
    const logDir = join(box.root, 'logs');
    const r = await cordonPcodx(['model-turn', '--db', db, '--session', 'm', '--text', 'hi', '--usage-log', join(logDir, 'deep', 'usage.jsonl'), '--codex-bin', join(box.root, 'no-codex')]);
    expect(r.exitCode).toBe(1);
    // The same wording as `serve`'s for a missing codex (serve/cli.test.ts): how to get it, not `spawn … ENOENT`.
    expect(r.stderr).toBe(`error: cannot start ${join(box.root, 'no-codex')}: there is no such file; install it (npm install -g @openai/codex) or pass --codex-bin PATH\n`);
    expect(existsSync(logDir)).toBe(false);
    expect(tableRows(db, 'select count(*) as n from messages')).toEqual([{ n: 0 }]);
  });

  // Found by a hostile-input probe: a FIFO was 'no ledger yet' to show and an SQLite I/O error
  // to init, /dev/null an fsync error, a dangling link `unable to open database file`.
  it('a FIFO, a device, a link to nothing or a loop of links as the ledger: each command names it and what it is, changing nothing', async () => {
    const fifo = join(box.root, 'fifo.sqlite3');
    execFileSync('mkfifo', [fifo]);
    const dangling = join(box.root, 'dangling.sqlite3');
    symlinkSync(join(box.root, 'nowhere.sqlite3'), dangling);
    // A link to itself was said to be a link to something that does not exist.
    const loop = join(box.root, 'loop.sqlite3');
    symlinkSync('loop.sqlite3', loop);
    const cases: Array<[string, string]> = [
      [loop, `ledger database ${loop} is a symbolic link to loop.sqlite3 that leads back to itself (a loop of links); it was left unchanged`],
      [fifo, `ledger database ${fifo} is a FIFO, not a file`],
      ['/dev/null', 'ledger database /dev/null is a character device, not a file'],
      [dangling, `ledger database ${dangling} is a symbolic link to ${join(box.root, 'nowhere.sqlite3')}, which does not exist`],
    ];
    for (const [db, said] of cases) {
      for (const args of [['show', '--db', db, '--session', 's'], ['init', '--db', db, '--session', 's']]) {
        const r = await cordonPcodx(args);
        expect([args, r.exitCode]).toEqual([args, 1]);
        expect(r.stderr).toContain(`error: ${said}`);
      }
    }
    expect(existsSync(join(box.root, 'nowhere.sqlite3'))).toBe(false);
  });

  // `--db FILE/x.sqlite3` where FILE is a file printed Node's words for mkdir(2)'s EEXIST:
  // `cannot create the directory of ledger database …: EEXIST: file already exists, mkdir 'FILE'`.
  it('a ledger path under a file: every command names the file that is not a directory, changing nothing', async () => {
    const plain = join(box.root, 'plain.txt');
    writeFileSync(plain, 'not a directory\n');
    for (const db of [join(plain, 'x.sqlite3'), join(plain, 'sub', 'x.sqlite3')]) {
      for (const args of [['init'], ['record', '--role', 'user', '--text', 'x'], ['turn', '--text', 'x']]) {
        const r = await cordonPcodx([...args, '--db', db, '--session', 's']);
        expect([args, r.exitCode, r.stderr]).toEqual([args, 1, `error: cannot create the directory of ledger database ${db}: ${plain} is not a directory\n`]);
      }
      // The commands that need a ledger said to run `cordon pcodx init` first, which fails as above.
      for (const args of [['show'], ['ids'], ['compact', '--from', 'msg1', '--to', 'msg1', '--summary', 's']]) {
        const r = await cordonPcodx([...args, '--db', db, '--session', 's']);
        expect([args, r.exitCode, r.stderr]).toEqual([args, 1, `error: there is no ledger at ${db}, and there cannot be one: ${plain} is not a directory; nothing was created\n`]);
      }
    }
    expect(sha(plain)).toBe(createHash('sha256').update('not a directory\n').digest('hex'));
  });

  it('an empty file given to a command that needs a session stays empty (no schema, no WAL)', async () => {
    const db = join(box.root, 'empty.sqlite3');
    writeFileSync(db, '');
    const r = await cordonPcodx(['show', '--db', db]);
    expect(r.exitCode).toBe(1);
    expect(statSync(db).size).toBe(0);
    expect(readdirSync(box.root).filter((f) => f.startsWith('empty'))).toEqual(['empty.sqlite3']);
  });
});

describe('ledger files cordon did not write', () => {
  it('a ledger the reference pcodx wrote works with every command after its upgrade', async () => {
    const db = join(box.root, 'reference.sqlite3');
    makeReferenceLedger(db);
    const show = await cordonPcodx(['show', '--db', db, '--session', 'alpha']);
    expect([show.exitCode, show.stderr]).toEqual([0, ""]);
    expect(show.stdout).toContain('loader is src/config.ts\n<aboveturn id="cmp2"/>\n\nit is src/config.ts\n<aboveturn id="msg5"/>');
    const compact = await cordonPcodx(['compact', '--db', db, '--session', 'alpha', '--from', 'msg6', '--to', 'msg7', '--summary', 'parser fixed']);
    expect([compact.exitCode, compact.stderr]).toEqual([0, '']);
    expect(compact.stdout).toContain('compaction_id=cmp3\n');
    const resume = await runProcess([process.execPath, PCODX_BIN, 'resume', '--db', db, '--last'], { env: { ...box.env, PCODX_DB: '' }, input: '/exit\n' });
    expect(resume.exitCode).toBe(0);
    expect(resume.stderr).toContain('session_id=alpha\nvisible_ids=msg1,cmp2,msg5,cmp3\n');
  });

  it('a damaged ledger is an error naming the file and the row, and the file is left unchanged', async () => {
    const db = join(box.root, 'reference.sqlite3');
    makeReferenceLedger(db, (raw) => raw.prepare(`update compactions set to_seq = 999999, to_msg_id = 'msg999999', n_messages_replaced = 999998`).run());
    const before = sha(db);
    const r = await cordonPcodx(['show', '--db', db, '--session', 'beta']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`error: ledger database ${db} is damaged: compactions row "cmp2" of session "alpha": its range msg2..msg999999 names a message that does not exist`);
    expect(sha(db)).toBe(before);
  });

  it('a correlation id cordon did not make never reaches the usage log: the ledger is refused before the turn', async () => {
    const db = join(box.root, 'pcodx.sqlite3');
    expect((await cordonPcodx(['init', '--db', db, '--session', 's'])).exitCode).toBe(0);
    const raw = new Database(db);
    raw.prepare(`update sessions set usage_correlation_id = 'pcses-alice@example.com'`).run();
    raw.close();
    const log = join(box.root, 'usage.jsonl');
    const r = await cordonPcodx(['model-turn', '--db', db, '--session', 's', '--text', 'hi', '--usage-log', log, '--codex-bin', join(box.root, 'no-codex')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`error: ledger database ${db} is damaged: sessions row "s" has a usage correlation id that cordon did not make`);
    expect(r.stderr).not.toContain('alice');
    expect(existsSync(log)).toBe(false);
  });
});
