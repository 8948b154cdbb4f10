import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverRepo } from '../../src/envelope/git/repo.js';
import { KNOWN_DIGESTS_FILE, KnownDigests } from '../../src/envelope/state/known-digests.js';
import { sha256 } from '../../src/envelope/state/exclude.js';
import { loadEnvelope } from '../../src/envelope/state/store.js';
import { armWith, repo, tempDir } from './support.js';

/** A clock `seconds` after now, in ns. */
const later = (seconds: number) => () => (BigInt(Date.now()) + BigInt(seconds * 1000)) * 1_000_000n;

/** `compute` for `file` that counts its calls. */
function counted(file: string): { compute: () => string; calls: () => number } {
  let calls = 0;
  return {
    compute: () => {
      calls++;
      return sha256(readFileSync(file));
    },
    calls: () => calls,
  };
}

describe('known envelope digests (envelope/state/known-digests.ts)', () => {
  it('a digest computed for a file unchanged for 2 s is kept and spares the next computation, in another instance too', () => {
    const cache = tempDir();
    const file = join(tempDir(), 'config.json');
    writeFileSync(file, '{"a":1}');
    const digest = sha256(readFileSync(file));
    const first = new KnownDigests(cache, later(10));
    const c = counted(file);
    expect(first.matches(first.identify(file), digest, c.compute)).toBe(true);
    first.save();
    expect(statSync(join(cache, KNOWN_DIGESTS_FILE)).mode & 0o777).toBe(0o600);
    const second = new KnownDigests(cache, later(10));
    expect(second.matches(second.identify(file), digest, c.compute)).toBe(true);
    expect(c.calls()).toBe(1);
  });

  it('a file without an inode number (ino 0: FAT, some network and FUSE filesystems) is computed every time', () => {
    const cache = tempDir();
    const file = join(tempDir(), 'config.json');
    writeFileSync(file, '{"a":1}');
    const digest = sha256(readFileSync(file));
    const known = new KnownDigests(cache, later(10));
    const c = counted(file);
    const unnumbered = { ...known.identify(file)!, numbered: false };
    expect(known.matches(unnumbered, digest, c.compute)).toBe(true);
    expect(known.matches(unnumbered, digest, c.compute)).toBe(true);
    expect(c.calls()).toBe(2);
    // The same file with its number: kept after one computation.
    expect(known.matches(known.identify(file), digest, c.compute)).toBe(true);
    expect(known.matches(known.identify(file), digest, c.compute)).toBe(true);
    expect(c.calls()).toBe(3);
  });

  it('a file changed within the last 2 s is computed every time and never kept', () => {
    const cache = tempDir();
    const file = join(tempDir(), 'config.json');
    writeFileSync(file, '{"a":1}');
    const digest = sha256(readFileSync(file));
    const c = counted(file);
    for (let i = 0; i < 2; i++) {
      const known = new KnownDigests(cache);
      expect(known.matches(known.identify(file), digest, c.compute)).toBe(true);
      known.save();
    }
    expect(c.calls()).toBe(2);
    expect(() => statSync(join(cache, KNOWN_DIGESTS_FILE))).toThrow(/ENOENT/);
  });

  it('an edit in place, same size, is a new identity: computed again, and the old digest no longer matches', () => {
    const cache = tempDir();
    const file = join(tempDir(), 'config.json');
    writeFileSync(file, '{"a":1}');
    const digest = sha256(readFileSync(file));
    const known = new KnownDigests(cache, later(10));
    expect(known.matches(known.identify(file), digest, counted(file).compute)).toBe(true);
    known.save();
    writeFileSync(file, '{"a":2}');
    const again = new KnownDigests(cache, later(10));
    const c = counted(file);
    expect(again.matches(again.identify(file), digest, c.compute)).toBe(false);
    expect(c.calls()).toBe(1);
  });

  it('a file that changes between its identity and the digest is computed and not kept', () => {
    const cache = tempDir();
    const file = join(tempDir(), 'config.json');
    writeFileSync(file, '{"a":1}');
    const known = new KnownDigests(cache, later(10));
    const before = known.identify(file);
    writeFileSync(file, '{"a":22}');
    const c = counted(file);
    expect(known.matches(before, sha256(readFileSync(file)), c.compute)).toBe(true);
    known.save();
    expect(c.calls()).toBe(1);
    expect(() => statSync(join(cache, KNOWN_DIGESTS_FILE))).toThrow(/ENOENT/);
  });

  it('a malformed cache is ignored, and a kept digest that differs from the expected one never makes a file fail', () => {
    const cache = tempDir();
    const file = join(tempDir(), 'config.json');
    writeFileSync(file, '{"a":1}');
    const digest = sha256(readFileSync(file));
    writeFileSync(join(cache, KNOWN_DIGESTS_FILE), 'not json');
    const known = new KnownDigests(cache, later(10));
    const id = known.identify(file)!;
    expect(known.matches(id, digest, counted(file).compute)).toBe(true);
    writeFileSync(join(cache, KNOWN_DIGESTS_FILE), JSON.stringify({ [`${file}\n${id.print}`]: 'f'.repeat(64) }));
    const wrong = new KnownDigests(cache, later(10));
    const c = counted(file);
    expect(wrong.matches(wrong.identify(file), digest, c.compute)).toBe(true);
    expect(c.calls()).toBe(1);
  });

  // The real clock: the envelope's files must be 2 s old before their digests are kept.
  it('loadEnvelope keeps the digests of an envelope armed 2 s ago, and still refuses a config.json edited after that', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const loc = await discoverRepo(dir);
    loadEnvelope(loc);
    const kept = JSON.parse(readFileSync(join(process.env.CORDON_CACHE_DIR!, KNOWN_DIGESTS_FILE), 'utf8')) as Record<string, string>;
    const paths = [join(dir, '.cordon', 'config.json'), join(dir, '.cordon', 'snapshot.json'), loc.excludeFile];
    for (const path of paths) expect(Object.keys(kept).some((key) => key.startsWith(`${path}\n`)), path).toBe(true);
    expect(loadEnvelope(loc).config.policy.allow).toEqual(['src/**']);
    const config = join(dir, '.cordon', 'config.json');
    writeFileSync(config, readFileSync(config, 'utf8').replace('"src/**"', '"**"'));
    expect(() => loadEnvelope(loc)).toThrow(/config.json does not match the hash recorded in state.json/);
  });
});
