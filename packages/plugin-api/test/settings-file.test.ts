import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSettingsText } from '../src/index.js';

// A file a plugin reads on every hook call must never hold the call: a FIFO or a device in its
// place reads as no file, at once.

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cordon-settings-file-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readSettingsText', () => {
  it('reads a regular file, and one through a symbolic link', () => {
    writeFileSync(join(dir, 'control.json'), '{"guard":{"codex":true}}\n');
    symlinkSync(join(dir, 'control.json'), join(dir, 'link.json'));
    expect(readSettingsText(join(dir, 'control.json'))).toBe('{"guard":{"codex":true}}\n');
    expect(readSettingsText(join(dir, 'link.json'))).toBe('{"guard":{"codex":true}}\n');
    writeFileSync(join(dir, 'empty.json'), '');
    expect(readSettingsText(join(dir, 'empty.json'))).toBe('');
  });

  it('a FIFO with no writer, a device, a directory, a missing or dangling path: undefined, at once', () => {
    execFileSync('mkfifo', [join(dir, 'fifo.json')]);
    symlinkSync('/dev/zero', join(dir, 'zero.json'));
    symlinkSync(join(dir, 'nothing'), join(dir, 'dangling.json'));
    mkdirSync(join(dir, 'dir.json'));
    for (const name of ['fifo.json', 'zero.json', 'dangling.json', 'dir.json', 'missing.json']) expect([name, readSettingsText(join(dir, name))]).toEqual([name, undefined]);
  });

  it('a file larger than the bound is not read', () => {
    writeFileSync(join(dir, 'big.json'), 'x'.repeat(101));
    writeFileSync(join(dir, 'fits.json'), 'x'.repeat(100));
    expect(readSettingsText(join(dir, 'big.json'), 100)).toBeUndefined();
    expect(readSettingsText(join(dir, 'fits.json'), 100)).toBe('x'.repeat(100));
  });
});
