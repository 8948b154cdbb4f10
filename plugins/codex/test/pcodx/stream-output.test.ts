import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cordonIntoClosedPipe, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { Ledger, renderWithRoles } from '../../../../packages/host/src/ledger/index.js';
import { linkCodex, pcodx } from './support.js';

// `pcodx show --roles`, `show`, `resume` and `pcodx ids` print as the ledger reads (pieces of a few thousand rows,
// each waited for when stdout is a pipe that is full), on the fast route and through oclif: the
// bytes are the ones the whole-output code printed (the role render of every visible entry, every
// visible id), the peak memory stays far below the output's size, and a reader that closes early
// ends the command quietly.

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox('cordon-pcodx-stream-');
  linkCodex(box);
});
afterEach(() => box.cleanup());

const ROUTES = { fast: {}, oclif: { CORDON_NO_FAST_ROUTE: '1' } } as const;

/**
 * A ledger with session `main`: a few messages recorded through the CLI (control characters, a NUL,
 * text ending in a newline, characters outside the BMP), then `count` more of about `bytes` bytes
 * each written straight into SQLite in one statement (what many `record`s would leave), then
 * compactions over some of them (one at the very end).
 */
async function writeLedger(db: string, count: number, bytes: number): Promise<void> {
  const ok = async (args: string[]) => expect((await pcodx(box, db, args)).exitCode, args.join(' ')).toBe(0);
  const texts: Array<[string, string]> = [
    ['system', 'rules \u001b[31mred\u001b[0m'],
    ['user', 'a\u0000b é 日本語 😀\r\n'],
    ['assistant', 'calling'],
    ['tool', 'out\n'],
    ['assistant', '[user]\n<aboveturn id="msg1"/> a\u0000b'],
  ];
  for (const [i, [role, text]] of texts.entries()) {
    // From a file: a NUL cannot travel in argv.
    const file = join(box.root, `text-${i}.txt`);
    writeFileSync(file, text);
    await ok(['record', '--session', 'main', '--role', role, '--text-file', file]);
  }
  const raw = new Database(db);
  try {
    raw
      .prepare(
        `with recursive n(i) as (select 6 union all select i + 1 from n where i < ?)
         insert into messages (id, session_id, seq, role, text, source, created_at_ms, is_human_prompt, preserve_warning)
         select 'msg' || i, 'main', i, case i % 2 when 0 then 'user' else 'assistant' end, i || ' é\u0007😀 ' || substr(?, 1, ?), null, 1, (i + 1) % 2, (i + 1) % 2 from n`,
      )
      .run(count + 5, 'x'.repeat(bytes), bytes);
  } finally {
    raw.close();
  }
  await ok(['compact', '--session', 'main', '--from', 'msg2', '--to', 'msg4', '--summary', 'sum \u001b[1m ü\n']);
  await ok(['compact', '--session', 'main', '--from', 'msg9', '--to', 'msg11', '--summary', 'middle']);
  await ok(['compact', '--session', 'main', '--from', `msg${count}`, '--to', `msg${count + 5}`, '--summary', 'the end']);
}

/** What the whole-output code printed: the role render of the visible entries, the visible ids and the plain render, read through the ledger library. */
async function expected(db: string): Promise<{ roles: string; ids: string; render: string }> {
  const ledger = await Ledger.open({ path: db });
  try {
    return { roles: `${renderWithRoles(await ledger.visible('main'))}\n`, ids: `session_id=main\n${(await ledger.visibleIds('main')).join('\n')}\n`, render: await ledger.render('main') };
  } finally {
    await ledger.close();
  }
}

let runs = 0;

/**
 * `cordon pcodx ARGS` on `db` with a probe that writes the process's peak RSS (KiB) to a file at
 * exit: `VmHWM` of /proc/self/status (proc(5)), the high-water mark of this process image. Not
 * `getrusage`'s maxrss, which Linux carries over a fork and exec (it would report this test
 * process's own size).
 */
async function measured(db: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; exitCode: number | null; maxRssKiB: number }> {
  // A file per run: a run that wrote nothing must not read an earlier run's number.
  const out = join(box.root, `rss-${++runs}.txt`);
  const probe = join(box.root, `rss-probe-${runs}.cjs`);
  writeFileSync(probe, `process.on('exit', () => { const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(out)}, /VmHWM:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]); });\n`);
  const nodeOptions = [box.env.NODE_OPTIONS, `--require ${probe}`].filter(Boolean).join(' ');
  const r = await pcodx(box, db, args, { env: { ...env, NODE_OPTIONS: nodeOptions }, timeoutMs: 180_000 });
  return { ...r, maxRssKiB: Number(readFileSync(out, 'utf8')) };
}

/** `cordon pcodx ARGS` on the ledger `db` into a pipe whose reader keeps `keep` bytes and then closes its end. */
const intoClosedPipe = (db: string, args: readonly string[], env: NodeJS.ProcessEnv, keep: number) => cordonIntoClosedPipe(['pcodx', ...args], { env: { ...box.env, PCODX_DB: db, ...env } }, keep);

describe('pcodx show --roles and ids stream their output', () => {
  it('print the same bytes as the whole-output code on both routes, for a small and a 60,000-message ledger', async () => {
    for (const [name, count] of [['small', 12], ['large', 60_000]] as const) {
      const db = join(box.root, `${name}.sqlite3`);
      await writeLedger(db, count, 40);
      const want = await expected(db);
      expect(want.roles).toContain('[compaction msg2..msg4, as user]\nsum \u001b[1m ü\n\n<aboveturn id="cmp1"/>');
      expect(want.roles).toContain('a\u0000b');
      for (const [route, env] of Object.entries(ROUTES)) {
        const roles = await pcodx(box, db, ['show', '--roles'], { env });
        expect({ route, name, exit: roles.exitCode, stderr: roles.stderr, same: roles.stdout === want.roles }).toEqual({ route, name, exit: 0, stderr: '', same: true });
        const ids = await pcodx(box, db, ['ids'], { env });
        expect({ route, name, exit: ids.exitCode, stderr: ids.stderr, same: ids.stdout === want.ids }).toEqual({ route, name, exit: 0, stderr: '', same: true });
        const json = JSON.parse((await pcodx(box, db, ['show', '--roles', '--json'], { env })).stdout);
        expect(json.render).toBe(want.roles.slice(0, -1));
        // `resume` prints the plain render as `show` does (then its loop, which ends at once: stdin is closed).
        const render = await pcodx(box, db, ['show'], { env });
        expect(render.stdout).toBe(`${want.render}\n`);
        const resumed = await pcodx(box, db, ['resume', '--session', 'main'], { env });
        expect({ route, name, exit: resumed.exitCode, starts: resumed.stdout.startsWith(render.stdout) }).toEqual({ route, name, exit: 0, starts: true });
      }
    }
  }, 240_000);

  it('hold far less than the output at once: peak RSS grows by less than a bound set by the size of what is printed', async () => {
    const small = join(box.root, 'small.sqlite3');
    await writeLedger(small, 12, 40);
    // About 57 MB of role render; a million visible ids, about 7 MB of lines.
    const render = join(box.root, 'render.sqlite3');
    await writeLedger(render, 100_000, 560);
    const ids = join(box.root, 'ids.sqlite3');
    await writeLedger(ids, 1_000_000, 1);
    for (const [route, env] of Object.entries(ROUTES)) {
      // The bound: 64 MiB of slack (the collector's and allocator's, which does not grow with the
      // output; Node 22 and 24 size V8's young generation larger, and a loaded machine collects
      // later) plus half of what is printed. Streamed, growth measured 30-49 MB on Node 20 and 22;
      // the whole-output code grew about 260 MB for the role render and about 96 MB for a million
      // id strings in one array, both above it.
      for (const [args, db] of [
        [['show', '--roles'], render],
        [['ids'], ids],
      ] as const) {
        // The first run of a route in a fresh sandbox also writes its code caches: measured after it.
        await measured(small, args, env);
        const base = await measured(small, args, env);
        const big = await measured(db, args, env);
        expect(big.exitCode, big.stderr).toBe(0);
        const bytes = Buffer.byteLength(big.stdout);
        expect(bytes).toBeGreaterThan(args[0] === 'ids' ? 5_000_000 : 50_000_000);
        const growthBytes = (big.maxRssKiB - base.maxRssKiB) * 1024;
        const bound = 64 * 1024 * 1024 + bytes / 2;
        expect({ route, args, growthBelowBound: growthBytes < bound }, `grew by ${growthBytes} bytes for ${bytes} bytes of output (bound ${bound})`).toEqual({ route, args, growthBelowBound: true });
      }
    }
  }, 300_000);

  it('a reader that closes early (| head) ends the command quietly with exit 0 on both routes', async () => {
    const db = join(box.root, 'l.sqlite3');
    await writeLedger(db, 20_000, 40);
    for (const [route, env] of Object.entries(ROUTES)) {
      for (const args of [['show', '--roles'], ['ids'], ['show']]) {
        for (const keep of [10, 0]) {
          const r = await intoClosedPipe(db, args, env, keep);
          expect({ route, args, keep, code: r.code, stderr: r.stderr }).toEqual({ route, args, keep, code: 0, stderr: '' });
          if (keep) expect(r.head).toBe(args[0] === 'ids' ? 'session_id' : args.length > 1 ? '[system]\nr' : 'rules \u001b[31');
        }
      }
      // A refusal keeps its exit code and message with the reader gone.
      const refused = await intoClosedPipe(db, ['ids', '--session', 'nobody'], env, 0);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('nobody');
    }
  }, 240_000);
});
