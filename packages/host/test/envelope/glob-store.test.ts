import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import picomatch from 'picomatch';
import { compileGlob, GLOB_OPTIONS, toPicomatchSource } from '../../src/envelope/glob.js';
import { GlobRegexStore, globCompilerKey } from '../../src/envelope/glob-store.js';
import { tempDirForTest } from '../../../../test/support/temp.js';

// The hook's live envelope keeps picomatch's compiled expressions across processes: a glob read
// back from the store must match exactly what a fresh compile matches, and anything foreign or
// damaged in the store must read as empty (a fresh compile), never as a different matcher.

const GLOBS = ['src/**', 'src/secret/**', '**/*.md', 'a?c/*.ts', 'docs/x (1).txt', '**'];
const PATHS = ['src/a.ts', 'src', 'src/secret/k.pem', 'README.md', 'docs/a/b.md', 'abc/x.ts', 'abc/d/x.ts', 'docs/x (1).txt', 'docs/x 1.txt', '.cordon/x', 'src/.env', 'a\nb'];

describe('GlobRegexStore', () => {
  it('an expression read back matches exactly as a fresh compile does; the file is owner-only', () => {
    const dir = tempDirForTest('cordon-glob-store-');
    const first = new GlobRegexStore(dir, 'k1');
    // The first compile of each glob in this process goes through the store, which keeps it.
    for (const glob of GLOBS) compileGlob(glob, first);
    first.save();
    const file = join(dir, 'live-globs.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = new GlobRegexStore(dir, 'k1');
    for (const glob of GLOBS) {
      const stored = second.get(glob)!;
      expect(stored, glob).toBeInstanceOf(RegExp);
      // Compiled again by picomatch itself, not read back through JSON.
      const fresh = picomatch.makeRe(toPicomatchSource(glob), GLOB_OPTIONS);
      for (const path of PATHS) expect([glob, path, stored.test(path)]).toEqual([glob, path, fresh.test(path)]);
    }
  });

  it('a store of another build, a damaged or oversized file, or a malformed entry reads as empty', () => {
    const dir = tempDirForTest('cordon-glob-store-');
    const store = new GlobRegexStore(dir, 'k1');
    store.put('src/**', /^x$/s);
    store.save();
    expect(new GlobRegexStore(dir, 'k2').get('src/**')).toBeUndefined();
    const file = join(dir, 'live-globs.json');
    writeFileSync(file, '{"key":"k1","globs":{"src/**":["(", "s"],"b/**":[1,2],"__proto__":["x",""]}}');
    const damaged = new GlobRegexStore(dir, 'k1');
    expect([damaged.get('src/**'), damaged.get('b/**'), damaged.get('__proto__'), damaged.get('toString')]).toEqual([undefined, undefined, expect.any(RegExp), undefined]);
    writeFileSync(file, 'not json');
    expect(new GlobRegexStore(dir, 'k1').get('src/**')).toBeUndefined();
    writeFileSync(file, `{"key":"k1","globs":{},"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`);
    expect(new GlobRegexStore(dir, 'k1').get('src/**')).toBeUndefined();
  });

  it('an unwritable cache directory costs nothing but the saving', () => {
    const dir = tempDirForTest('cordon-glob-store-');
    chmodSync(dir, 0o500);
    try {
      const store = new GlobRegexStore(dir, 'k1');
      store.put('src/**', /^src$/);
      expect(() => store.save()).not.toThrow();
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it('the compiler key names both bundles of the built hook, and is undefined without them', () => {
    const hot = join(import.meta.dirname, '../../dist/hot');
    expect(globCompilerKey(hot)).toMatch(/^hook\.cjs:\d+:\d+:\d+\|picomatch\.cjs:\d+:\d+:\d+$/);
    expect(globCompilerKey(tempDirForTest('cordon-glob-store-'))).toBeUndefined();
    expect(existsSync(join(hot, 'picomatch.cjs'))).toBe(true);
    expect(readFileSync(join(hot, 'picomatch.cjs'), 'utf8').length).toBeGreaterThan(0);
  });
});
