import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lstatKind, lstatKindIsDirect, statStamp, statStampIsDirect } from '../../src/io/stat-direct.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cordon-stat-direct-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** What lstatKind must say of `path`, worked out from `fs.lstatSync`, or the error it must throw. */
function expected(path: string | Buffer): unknown {
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st) return undefined;
    const type = st.isFile() ? 'file' : st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'directory' : 'other';
    return { type, size: st.size };
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return { thrown: { code: e.code, syscall: e.syscall, message: e.message } };
  }
}

function actual(path: string | Buffer): unknown {
  try {
    return lstatKind(path);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    return { thrown: { code: e.code, syscall: e.syscall, message: e.message } };
  }
}

describe('lstatKind', () => {
  it("asks Node's binding directly on the Node majors cordon supports (20, 22, 24)", () => {
    expect(lstatKindIsDirect()).toBe(true);
  });

  it('says what fs.lstatSync says of files, links, directories, FIFOs, missing paths and paths through a file', () => {
    writeFileSync(join(root, 'file.txt'), 'hello\n');
    writeFileSync(join(root, 'empty'), '');
    symlinkSync('file.txt', join(root, 'link'));
    symlinkSync('nowhere/at/all', join(root, 'dangling'));
    mkdirSync(join(root, 'dir'));
    execFileSync('mkfifo', [join(root, 'fifo')]);
    const cases = ['file.txt', 'empty', 'link', 'dangling', 'dir', 'fifo', 'missing', 'missing/below', 'file.txt/below'].map((name) => join(root, name));
    for (const path of cases) expect({ path, kind: actual(path) }).toEqual({ path, kind: expected(path) });
    expect(actual(join(root, 'file.txt'))).toEqual({ type: 'file', size: 6 });
    expect(actual(join(root, 'link'))).toEqual({ type: 'symlink', size: 'file.txt'.length });
    expect(actual(join(root, 'missing'))).toBeUndefined();
    expect(actual(join(root, 'file.txt/below'))).toMatchObject({ thrown: { code: 'ENOTDIR', syscall: 'lstat' } });
  });

  it('takes a Buffer path whose name is not UTF-8, and refuses a NUL byte as lstatSync does', () => {
    const name = Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0x66, 0xff, 0x6f])]);
    writeFileSync(name, 'abc');
    expect(actual(name)).toEqual({ type: 'file', size: 3 });
    expect(actual(name)).toEqual(expected(name));
    // Not the path up to the NUL (root itself, a directory): Node's own validation error.
    for (const path of [`${root}\0x`, Buffer.from(`${root}\0x`)]) {
      expect(actual(path)).toEqual(expected(path));
      expect(actual(path)).toMatchObject({ thrown: { code: 'ERR_INVALID_ARG_VALUE' } });
    }
  });

  it('prints no deprecation warning, even under --pending-deprecation', () => {
    const module = join(import.meta.dirname, '../../dist/io/stat-direct.js');
    const r = spawnSync(process.execPath, ['--pending-deprecation', '--input-type=module', '-e', `const m = await import(${JSON.stringify(module)}); console.log(JSON.stringify([m.lstatKindIsDirect(), m.lstatKind(${JSON.stringify(root)})]));`], { encoding: 'utf8' });
    expect({ stderr: r.stderr, stdout: JSON.parse(r.stdout) }).toEqual({ stderr: '', stdout: [true, { type: 'directory', size: lstatSync(root).size }] });
  });
});

describe('statStamp', () => {
  /** What statStamp must say: fs.statSync's size and mtimeMs, or missing where it throws. */
  const fromStatSync = (path: string): string => {
    try {
      const st = statSync(path);
      return `${st.size}:${st.mtimeMs}`;
    } catch {
      return 'missing';
    }
  };

  it("asks Node's binding directly on the Node majors cordon supports (20, 22, 24)", () => {
    expect(statStampIsDirect()).toBe(true);
  });

  it('gives the size and mtimeMs fs.statSync gives, through links, and missing wherever statSync throws', () => {
    writeFileSync(join(root, 'file.txt'), 'hello\n');
    // A modification time with a fraction of a millisecond: the same floating-point value as Node's.
    utimesSync(join(root, 'file.txt'), 1_700_000_000.123456, 1_700_000_000.987654);
    symlinkSync('file.txt', join(root, 'link'));
    symlinkSync('nowhere', join(root, 'dangling'));
    mkdirSync(join(root, 'dir'));
    mkdirSync(join(root, 'closed'));
    writeFileSync(join(root, 'closed', 'inside'), 'x');
    chmodSync(join(root, 'closed'), 0o000);
    try {
      const cases = ['file.txt', 'link', 'dangling', 'dir', 'missing', 'file.txt/below', 'closed/inside', `nul\0byte`].map((name) => join(root, name));
      for (const path of cases) expect({ path, stamp: statStamp(path) }).toEqual({ path, stamp: fromStatSync(path) });
      expect(statStamp(join(root, 'link'))).toBe(statStamp(join(root, 'file.txt')));
      expect(statStamp(join(root, 'file.txt'))).toBe(`6:${statSync(join(root, 'file.txt')).mtimeMs}`);
      expect(statStamp(join(root, 'missing'))).toBe('missing');
    } finally {
      chmodSync(join(root, 'closed'), 0o700);
    }
  });
});
