import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LEDGER_SCHEMA_VERSION, explainOpenFailure } from '../../src/ledger/index.js';
import { fingerprint, ledgers, tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
const L = ledgers();
beforeEach(() => (tmp = tempDir()));
afterEach(async () => {
  await L.closeAll();
  tmp.cleanup();
});

/** A real ledger file with one session and two messages, closed again. */
async function makeLedger(path: string): Promise<void> {
  const ledger = await L.open(path);
  await ledger.resolveSession({ mode: 'create', id: 's' });
  await ledger.record('s', [{ role: 'user', text: 'hello' }, { role: 'assistant', text: 'hi' }]);
  await L.closeAll();
}

async function refusedUnchanged(path: string, message: RegExp): Promise<void> {
  const before = fingerprint(path);
  await expect(L.open(path)).rejects.toMatchObject({ code: 'CORDON_DB_ERROR', message: expect.stringMatching(message) });
  expect(fingerprint(path)).toBe(before);
}

describe('opening the ledger', () => {
  it('opens an existing ledger again without migrating twice, keeping its data', async () => {
    const path = join(tmp.dir, 'l.sqlite3');
    await makeLedger(path);
    const ledger = await L.open(path);
    expect(await ledger.render('s')).toBe('hello\n<aboveturn id="msg1"/>\n\nhi\n<aboveturn id="msg2"/>');
  });

  it('refuses a newer schema version with a clear error and leaves the file unchanged', async () => {
    const path = join(tmp.dir, 'newer.sqlite3');
    await makeLedger(path);
    const raw = new Database(path);
    raw.prepare(`update schema_meta set value = ? where key = 'schema_version'`).run(String(LEDGER_SCHEMA_VERSION + 1));
    raw.close();
    await refusedUnchanged(path, new RegExp(`has schema version ${LEDGER_SCHEMA_VERSION + 1}, newer than this cordon understands \\(${LEDGER_SCHEMA_VERSION}\\); it was left unchanged`));
  });

  it('refuses a file that is not SQLite at all and leaves it unchanged', async () => {
    const path = join(tmp.dir, 'notes.sqlite3');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    await refusedUnchanged(path, /is not an SQLite database .*left unchanged/);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('refuses a corrupt SQLite file (valid header, garbage pages) and leaves it unchanged', async () => {
    const path = join(tmp.dir, 'corrupt.sqlite3');
    await makeLedger(path);
    const bytes = readFileSync(path);
    // Keep the 100-byte file header; scribble over the schema b-tree on page 1 and the rest.
    for (let i = 100; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
    writeFileSync(path, bytes);
    await refusedUnchanged(path, /is corrupt|malformed|not a database/);
  });

  it('refuses an SQLite database that is not a ledger and leaves it unchanged', async () => {
    const path = join(tmp.dir, 'other.sqlite3');
    const raw = new Database(path);
    raw.exec('create table invoices (id integer primary key, total real)');
    raw.close();
    await refusedUnchanged(path, /not a pcodx ledger \(it has no schema_meta table\)/);
  });

  it('refuses a ledger whose schema_version is not a number, unchanged', async () => {
    const path = join(tmp.dir, 'weird.sqlite3');
    await makeLedger(path);
    const raw = new Database(path);
    raw.prepare(`update schema_meta set value = 'banana' where key = 'schema_version'`).run();
    raw.close();
    await refusedUnchanged(path, /has no valid schema_version \(found "banana"\)/);
  });

  it('turns an empty file into a ledger', async () => {
    const path = join(tmp.dir, 'empty.sqlite3');
    writeFileSync(path, '');
    const ledger = await L.open(path);
    expect((await ledger.resolveSession({ mode: 'create', id: 'x' })).id).toBe('x');
  });

  it('names the directory it cannot create', async () => {
    const blocker = join(tmp.dir, 'file');
    writeFileSync(blocker, 'x');
    await expect(L.open(join(blocker, 'sub', 'l.sqlite3'))).rejects.toMatchObject({ code: 'CORDON_DB_ERROR', message: expect.stringContaining('cannot create the directory') });
  });

  it('explains a better-sqlite3 built for another Node.js ABI with the npm rebuild remedy', () => {
    const abi = Object.assign(
      new Error(
        "The module '/x/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 127. This version of Node.js requires\nNODE_MODULE_VERSION 115.",
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    );
    const explained = explainOpenFailure('/db', abi) as Error & { code: string };
    expect(explained.code).toBe('CORDON_DB_ERROR');
    expect(explained.message).toContain('run `npm rebuild better-sqlite3`');
    expect(explained.message).toContain(process.version);
    const other = explainOpenFailure('/db', new Error('EACCES: permission denied')) as Error;
    expect(other.message).toBe('cannot open ledger database /db: EACCES: permission denied');
    expect(other.message).not.toContain('rebuild');
  });
});
