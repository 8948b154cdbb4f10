import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeTree } from '../../src/io/remove-tree.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cordon-remove-tree-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('removeTree', () => {
  it('removes a private git directory and all in it; links are removed, never followed', () => {
    const outside = join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.txt'), 'keep');
    const dir = join(root, 'cordon-git-1');
    mkdirSync(join(dir, 'refs', 'heads'), { recursive: true });
    mkdirSync(join(dir, 'info'));
    for (const f of ['HEAD', 'config', 'index', 'info/exclude', 'refs/heads/main']) writeFileSync(join(dir, f), 'x');
    symlinkSync(outside, join(dir, 'linked-dir'));
    symlinkSync(join(outside, 'keep.txt'), join(dir, 'sharedindex.abc'));
    symlinkSync(join(root, 'nowhere'), join(dir, 'dangling'));
    removeTree(dir);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(outside)).toEqual(['keep.txt']);
  });

  it('a missing directory is no error', () => {
    expect(() => removeTree(join(root, 'missing'))).not.toThrow();
  });

  it('a tree deeper than it walks itself is still removed whole', () => {
    const dir = join(root, 'deep');
    const leaf = join(dir, ...Array.from({ length: 12 }, (_, i) => `d${i}`));
    mkdirSync(leaf, { recursive: true });
    writeFileSync(join(leaf, 'f'), 'x');
    removeTree(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it('a file where the directory was expected is removed too, as rmSync does', () => {
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    removeTree(file);
    expect(existsSync(file)).toBe(false);
  });
});
