import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { putText } from '../../src/install-hooks/files.js';

// Found by a hostile-input probe (reading run.ts): install-hooks reads every config to plan, then
// writes each plan's text. A config written in between (Claude Code saving a setting, an editor;
// with several agents and Codex's check the gap is seconds) was overwritten with text made from
// the older bytes, dropping that write. run.ts now passes each change's `before` to putText.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-hooks-changed-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('putText with the bytes the plan was made from', () => {
  it('writes when the file still holds them, and refuses, writing nothing, when it changed or appeared', () => {
    const path = join(dir, 'settings.json');
    writeFileSync(path, '{"a": 1}\n');
    putText(path, '{"a": 1, "hooks": {}}\n', { before: '{"a": 1}\n' });
    expect(readFileSync(path, 'utf8')).toBe('{"a": 1, "hooks": {}}\n');

    writeFileSync(path, '{"a": 2}\n'); // the agent saved a setting after the plan read '{"a": 1}'
    expect(() => putText(path, '{"a": 1, "hooks": {"x": []}}\n', { before: '{"a": 1}\n' })).toThrow(`${path} changed after install-hooks read it`);
    expect(readFileSync(path, 'utf8')).toBe('{"a": 2}\n');

    const fresh = join(dir, 'new', 'hooks.json');
    writeFileSync(join(dir, 'new.keep'), '');
    expect(() => putText(join(dir, 'settings.json'), undefined, { before: '{"a": 1}\n' })).toThrow('changed after install-hooks read it');
    expect(existsSync(path)).toBe(true);
    putText(fresh, '{}\n', { before: undefined });
    expect(readFileSync(fresh, 'utf8')).toBe('{}\n');
  });
});
