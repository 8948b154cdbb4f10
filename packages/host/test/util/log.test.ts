import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileLogger, LOG_ROTATE_BYTES, MAX_LOG_TEXT_CHARS } from '../../src/util/log.js';

// Log fields carry what payloads sent (an unknown hook_event_name, an error echoing a command):
// a hostile-input probe of the hook found a 1.3 MB event name logged whole on every call.

const SECRET = 'ghp_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD';

describe('the file logger bounds what it keeps', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-log-bound-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('cuts a long message and every long string field to MAX_LOG_TEXT_CHARS, saying how long it was, and masks a secret the cut runs through', () => {
    const log = createFileLogger(dir, 'test', { CORDON_LOG_LEVEL: 'debug' });
    const long = 'x'.repeat(MAX_LOG_TEXT_CHARS - 10) + SECRET + 'y'.repeat(1 << 20);
    log.warn(long, { field: long, nested: { list: [long] }, short: 'kept' });
    const text = readFileSync(join(dir, 'logs', 'cordon.log'), 'utf8');
    expect(text.length).toBeLessThan(4 * (MAX_LOG_TEXT_CHARS + 200));
    expect(text).not.toMatch(/ghp_D/);
    const line = JSON.parse(text.trim()) as { message: string; field: string; nested: { list: string[] }; short: string };
    for (const kept of [line.message, line.field, line.nested.list[0]!]) {
      expect(kept.length).toBeLessThanOrEqual(MAX_LOG_TEXT_CHARS);
      expect(kept).toMatch(new RegExp(`… \\(${long.length} characters\\)$`));
    }
    expect(line.short).toBe('kept');
  });
});

describe('the file logger rotates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-log-rotate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('moves a full cordon.log to cordon.log.1 (replacing the one before) and begins a new one, owner-only', () => {
    // Before, the log grew by a line per unguarded control run without bound.
    const file = join(dir, 'logs', 'cordon.log');
    mkdirSync(join(dir, 'logs'), { recursive: true });
    const log = createFileLogger(dir, 'test');
    writeFileSync(file, `${'{"old":1}\n'.repeat(LOG_ROTATE_BYTES / 10 - 1)}`);
    log.warn('still below');
    expect(existsSync(`${file}.1`)).toBe(false);
    writeFileSync(file, `${'{"old":2}\n'.repeat(LOG_ROTATE_BYTES / 10 + 1)}`);
    writeFileSync(`${file}.1`, 'older\n');
    log.warn('after the limit');
    expect(statSync(`${file}.1`).size).toBeGreaterThanOrEqual(LOG_ROTATE_BYTES);
    expect(readFileSync(`${file}.1`, 'utf8').startsWith('{"old":2}')).toBe(true);
    const fresh = readFileSync(file, 'utf8').trim().split('\n');
    expect(fresh.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(['after the limit']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
