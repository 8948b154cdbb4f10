import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRegularFile, readRegularFileHead, readRegularFileIfExists, readRegularFileWindow, UnsafeReadError } from '../../src/io/safe-read.js';
import { tempDirForTest } from '../../../../test/support/temp.js';

const temp = (): string => tempDirForTest('cordon-read-');

function refusal(fn: () => unknown): UnsafeReadError {
  try {
    fn();
  } catch (error) {
    if (error instanceof UnsafeReadError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('readRegularFile', () => {
  it('reads a regular file whole', () => {
    const dir = temp();
    writeFileSync(join(dir, 'f'), 'hello');
    expect(readRegularFile(join(dir, 'f'), { maxBytes: 5 }).toString()).toBe('hello');
  });

  it('refuses a FIFO at once instead of blocking (no writer ever opens it)', () => {
    const dir = temp();
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    const e = refusal(() => readRegularFile(join(dir, 'fifo'), { maxBytes: 100, links: 'always' }));
    expect(e.reason).toBe('not-regular');
    expect(e.message).toContain('FIFO');
  });

  it('refuses devices and directories: /dev/zero is never read', () => {
    expect(refusal(() => readRegularFile('/dev/zero', { maxBytes: 1 << 20, links: 'always' })).reason).toBe('not-regular');
    expect(refusal(() => readRegularFile(tmpdir(), { maxBytes: 1, links: 'always' })).reason).toBe('not-regular');
  });

  it('refuses a file over the limit without reading it and never echoes its content', () => {
    const dir = temp();
    writeFileSync(join(dir, 'secret'), 'root:$6$hash:19000:0:99999:7:::\n');
    const e = refusal(() => readRegularFile(join(dir, 'secret'), { maxBytes: 4 }));
    expect(e.reason).toBe('too-large');
    expect(e.message).not.toContain('root:');
  });

  it('a link loop where links are followed is worded as one (to itself, a loop, on its path); under links never it stays a link cordon does not follow', () => {
    const dir = temp();
    symlinkSync('self', join(dir, 'self'));
    symlinkSync(join(dir, 'b'), join(dir, 'a'));
    symlinkSync('a', join(dir, 'b'));
    symlinkSync('loopdir', join(dir, 'loopdir'));
    for (const links of ['always', 'within-root'] as const) {
      const self = refusal(() => readRegularFile(join(dir, 'self'), { maxBytes: 10, links, root: dir }));
      expect([self.reason, self.message]).toEqual(['symlink', `${join(dir, 'self')}: is a symbolic link to itself`]);
      const loop = refusal(() => readRegularFile(join(dir, 'a'), { maxBytes: 10, links, root: dir }));
      expect(loop.message).toBe(`${join(dir, 'a')}: is a symbolic link loop (${join(dir, 'a')} -> ${join(dir, 'b')} -> ${join(dir, 'a')})`);
      expect(refusal(() => readRegularFile(join(dir, 'loopdir', 'f'), { maxBytes: 10, links, root: dir })).message).toBe(`${join(dir, 'loopdir', 'f')}: has a symbolic link loop on its path`);
    }
    expect(refusal(() => readRegularFile(join(dir, 'self'), { maxBytes: 10 })).message).toBe(`${join(dir, 'self')}: is a symbolic link; cordon does not follow it`);
  });

  it("links 'never' refuses a symbolic link; 'within-root' follows only links that stay inside", () => {
    const dir = temp();
    mkdirSync(join(dir, 'repo'));
    writeFileSync(join(dir, 'outside'), 'secret');
    writeFileSync(join(dir, 'repo', 'inside'), 'ok');
    symlinkSync(join(dir, 'outside'), join(dir, 'repo', 'out-link'));
    symlinkSync('inside', join(dir, 'repo', 'in-link'));
    symlinkSync('/dev/zero', join(dir, 'repo', 'zero-link'));
    expect(refusal(() => readRegularFile(join(dir, 'repo', 'in-link'), { maxBytes: 10 })).reason).toBe('symlink');
    const root = join(dir, 'repo');
    expect(readRegularFile(join(root, 'in-link'), { maxBytes: 10, links: 'within-root', root }).toString()).toBe('ok');
    const out = refusal(() => readRegularFile(join(root, 'out-link'), { maxBytes: 10, links: 'within-root', root }));
    expect(out.reason).toBe('outside-root');
    expect(out.message).not.toContain('secret');
    expect(refusal(() => readRegularFile(join(root, 'zero-link'), { maxBytes: 10, links: 'within-root', root })).reason).toBe('outside-root');
  });

  it('a missing file is `missing`, and undefined through readRegularFileIfExists', () => {
    const dir = temp();
    expect(refusal(() => readRegularFile(join(dir, 'nope'), { maxBytes: 1 })).reason).toBe('missing');
    expect(readRegularFileIfExists(join(dir, 'nope'), { maxBytes: 1 })).toBeUndefined();
  });
});

describe('readRegularFileWindow and readRegularFileHead (cordon top follows files by their ends)', () => {
  it('reads from an offset to the end, never more than maxBytes, and says where the bytes lie', () => {
    const dir = temp();
    const path = join(dir, 'f');
    writeFileSync(path, '0123456789');
    expect(readRegularFileWindow(path, { maxBytes: 4 })).toMatchObject({ start: 6, size: 10 });
    expect(readRegularFileWindow(path, { maxBytes: 4 }).bytes.toString()).toBe('6789');
    expect(readRegularFileWindow(path, { maxBytes: 100, from: 7 }).bytes.toString()).toBe('789');
    // From past the end (the file was replaced by a shorter one): nothing, at the end.
    expect(readRegularFileWindow(path, { maxBytes: 100, from: 50 })).toMatchObject({ start: 10, size: 10 });
    // More appended than maxBytes since `from`: the last maxBytes only.
    expect(readRegularFileWindow(path, { maxBytes: 3, from: 2 }).bytes.toString()).toBe('789');
    expect(readRegularFileHead(path, { maxBytes: 3 }).toString()).toBe('012');
    expect(readRegularFileHead(path, { maxBytes: 100 }).toString()).toBe('0123456789');
  });

  it('refuses links, FIFOs and directories as readRegularFile does', () => {
    const dir = temp();
    writeFileSync(join(dir, 'target'), 'secret');
    symlinkSync(join(dir, 'target'), join(dir, 'link'));
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    expect(refusal(() => readRegularFileWindow(join(dir, 'link'), { maxBytes: 10 })).reason).toBe('symlink');
    expect(refusal(() => readRegularFileHead(join(dir, 'link'), { maxBytes: 10 })).reason).toBe('symlink');
    expect(refusal(() => readRegularFileWindow(join(dir, 'fifo'), { maxBytes: 10 })).reason).toBe('not-regular');
    expect(refusal(() => readRegularFileHead(dir, { maxBytes: 10 })).reason).toBe('not-regular');
    expect(refusal(() => readRegularFileWindow(join(dir, 'missing'), { maxBytes: 10 })).reason).toBe('missing');
  });
});
