import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileLogger, MAX_LOG_TEXT_CHARS } from '../../src/util/log.js';

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
