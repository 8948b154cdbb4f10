import { chmodSync, existsSync, linkSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendUsageRecord, checkUsageLogFile, resolveUsageLogPath } from '../../src/ledger/usage-log.js';

let dir: string;
let db: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-usage-'));
  db = join(dir, 'pcodx.sqlite3');
  writeFileSync(db, 'db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('resolveUsageLogPath (the Rust pcodx, SichangHe/partial_compact_codex)', () => {
  it('takes --usage-log, then $PCODX_USAGE_LOG, then the db path with .usage.jsonl', () => {
    expect(resolveUsageLogPath({ usageLog: 'u.jsonl', dbPath: db, env: { PCODX_USAGE_LOG: '/x/e.jsonl' }, cwd: dir })).toBe(join(dir, 'u.jsonl'));
    expect(resolveUsageLogPath({ dbPath: db, env: { PCODX_USAGE_LOG: '/x/e.jsonl' } })).toBe('/x/e.jsonl');
    expect(resolveUsageLogPath({ dbPath: db, env: {} })).toBe(join(dir, 'pcodx.usage.jsonl'));
    expect(resolveUsageLogPath({ dbPath: '/d/ledger', env: {} })).toBe('/d/ledger.usage.jsonl');
  });
});

describe('appendUsageRecord', () => {
  it('creates the log 0600 in owner-only new directories and appends one compact line per record', () => {
    const path = join(dir, 'logs', 'deep', 'usage.jsonl');
    appendUsageRecord(path, db, { a: 1 });
    appendUsageRecord(path, db, { b: 'two' });
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"b":"two"}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'logs')).mode & 0o777).toBe(0o700);
  });

  it('copies only correlation ids cordon made: any other value in pcodx_session_correlation_id is refused and nothing is written', () => {
    const path = join(dir, 'usage.jsonl');
    const good = `pcses-${'0123456789abcdef'.repeat(2)}`;
    appendUsageRecord(path, db, { pcodx_session_correlation_id: good, n: 1 });
    for (const bad of ['alice@example.com', 'pcses-alice', `pcses-${'0123456789ABCDEF'.repeat(2)}`, `${good}0`, ` ${good}`, `pcses-${'g'.repeat(32)}`, null, 42, { id: good }]) {
      expect(() => appendUsageRecord(path, db, { pcodx_session_correlation_id: bad, n: 2 }), String(bad)).toThrow(
        expect.objectContaining({ code: 'CORDON_USAGE_LOG_REFUSED', message: expect.stringContaining('is not a correlation id cordon made') }),
      );
    }
    expect(readFileSync(path, 'utf8')).toBe(`{"pcodx_session_correlation_id":"${good}","n":1}\n`);
  });

  it('checking a log that does not exist creates nothing; a path under a file is refused at the check', () => {
    const path = join(dir, 'new', 'deeper', 'usage.jsonl');
    expect(checkUsageLogFile(path, db)).toBe('missing');
    expect(existsSync(join(dir, 'new'))).toBe(false);
    expect(() => checkUsageLogFile(join(db, 'sub', 'usage.jsonl'), db)).toThrow(expect.objectContaining({ code: 'CORDON_USAGE_LOG_REFUSED', message: expect.stringContaining(`cannot be created: ${db} is not a directory`) }));
    appendUsageRecord(path, db, { n: 1 });
    expect(checkUsageLogFile(path, db)).toBe('exists');
  });

  it('ends a torn last line before appending, so the new line is whole', () => {
    const path = join(dir, 'usage.jsonl');
    writeFileSync(path, '{"a":1}\n{"torn', { mode: 0o600 });
    appendUsageRecord(path, db, { c: 3 });
    expect(readFileSync(path, 'utf8')).toBe('{"a":1}\n{"torn\n{"c":3}\n');
  });

  it('refuses a file open to group or others, a symbolic link, a directory and the database itself, writing nothing', () => {
    const open = join(dir, 'open.jsonl');
    writeFileSync(open, '');
    for (const mode of [0o640, 0o604, 0o660]) {
      chmodSync(open, mode);
      expect(() => appendUsageRecord(open, db, { x: 1 })).toThrow(expect.objectContaining({ code: 'CORDON_USAGE_LOG_REFUSED', message: expect.stringContaining('open to group or others') }));
      expect(readFileSync(open, 'utf8')).toBe('');
    }
    const target = join(dir, 'target.jsonl');
    writeFileSync(target, '', { mode: 0o600 });
    symlinkSync(target, join(dir, 'link.jsonl'));
    expect(() => appendUsageRecord(join(dir, 'link.jsonl'), db, { x: 1 })).toThrow(/symbolic link/);
    expect(() => appendUsageRecord(dir, db, { x: 1 })).toThrow(/not a regular file/);
    expect(() => appendUsageRecord(db, db, { x: 1 })).toThrow(/is the ledger database/);
    chmodSync(db, 0o600);
    linkSync(db, join(dir, 'hard.jsonl'));
    expect(() => appendUsageRecord(join(dir, 'hard.jsonl'), db, { x: 1 })).toThrow(/hard link to the ledger database/);
    expect(readFileSync(db, 'utf8')).toBe('db');
    expect(readFileSync(target, 'utf8')).toBe('');
  });
});
