import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTempName, renameOver, tempPathBeside, writeFileAtomic, writeTarget } from '../../src/io/atomic-write.js';
import { tempDirForTest } from '../../../../test/support/temp.js';

const temp = (): string => tempDirForTest('cordon-io-');

describe('writeFileAtomic', () => {
  it('keeps an absolute symbolic link and writes its target, with the temp file beside the target', () => {
    const dir = temp();
    mkdirSync(join(dir, 'dotfiles'));
    mkdirSync(join(dir, 'home'));
    const target = join(dir, 'dotfiles', 'settings.json');
    writeFileSync(target, '{}\n', { mode: 0o644 });
    const link = join(dir, 'home', 'settings.json');
    symlinkSync(target, link);
    const written = writeFileAtomic(link, '{"a":1}\n');
    expect(written).toBe(target);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target, 'utf8')).toBe('{"a":1}\n');
    // The existing mode is kept; no temp file is left in either directory.
    expect(statSync(target).mode & 0o777).toBe(0o644);
    expect(readdirSync(join(dir, 'home'))).toEqual(['settings.json']);
    expect(readdirSync(join(dir, 'dotfiles'))).toEqual(['settings.json']);
  });

  it('follows relative and chained links, and a dangling link creates its target', () => {
    const dir = temp();
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    symlinkSync('../b/real.yaml', join(dir, 'a', 'mid.yaml'));
    symlinkSync('mid.yaml', join(dir, 'a', 'config.yaml'));
    expect(writeTarget(join(dir, 'a', 'config.yaml'))).toBe(join(dir, 'b', 'real.yaml'));
    writeFileAtomic(join(dir, 'a', 'config.yaml'), 'x: 1\n');
    expect(readFileSync(join(dir, 'b', 'real.yaml'), 'utf8')).toBe('x: 1\n');
    expect(statSync(join(dir, 'b', 'real.yaml')).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(dir, 'a', 'config.yaml')).isSymbolicLink()).toBe(true);
  });

  it("links: 'replace' replaces the link itself", () => {
    const dir = temp();
    writeFileSync(join(dir, 'target'), 'old');
    symlinkSync(join(dir, 'target'), join(dir, 'link'));
    writeFileAtomic(join(dir, 'link'), 'new', { links: 'replace' });
    expect(lstatSync(join(dir, 'link')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'target'), 'utf8')).toBe('old');
  });

  it('a link loop is an ELOOP error and writes nothing', () => {
    const dir = temp();
    symlinkSync(join(dir, 'b'), join(dir, 'a'));
    symlinkSync(join(dir, 'a'), join(dir, 'b'));
    expect(() => writeFileAtomic(join(dir, 'a'), 'x')).toThrow(/too many levels/);
    expect(readdirSync(dir).sort()).toEqual(['a', 'b']);
  });

  it('never replaces what is not a regular file: a FIFO, a link to one, a directory are left as they were, nothing else written', () => {
    const dir = temp();
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    symlinkSync(fifo, join(dir, 'to-fifo'));
    mkdirSync(join(dir, 'sub'));
    expect(() => writeFileAtomic(fifo, 'x')).toThrow(expect.objectContaining({ code: 'EFTYPE' }));
    expect(() => writeFileAtomic(join(dir, 'to-fifo'), 'x')).toThrow(expect.objectContaining({ code: 'EFTYPE' }));
    expect(() => writeFileAtomic(join(dir, 'sub'), 'x')).toThrow(expect.objectContaining({ code: 'EISDIR' }));
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['fifo', 'sub', 'to-fifo']);
    // links: 'replace' replaces the link itself, as before.
    writeFileAtomic(join(dir, 'to-fifo'), 'x', { links: 'replace' });
    expect(readFileSync(join(dir, 'to-fifo'), 'utf8')).toBe('x');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('temp names are unpredictable and recognisable; a planted link under a temp-like name is never followed', () => {
    const dir = temp();
    const victim = join(dir, 'bashrc');
    writeFileSync(victim, 'precious\n');
    const path = join(dir, 'state.json');
    const names = new Set(Array.from({ length: 50 }, () => tempPathBeside(path)));
    expect(names.size).toBe(50);
    for (const n of names) expect(isTempName(n.slice(dir.length + 1))).toBe(true);
    expect(isTempName('state.json')).toBe(false);
    // Every name the old code could have used (`<file>.cordon-<pid>.tmp`) and a sample of the
    // new shape are planted as links to the victim: the write goes to its own fresh name.
    for (let pid = process.pid - 5; pid <= process.pid + 5; pid++) symlinkSync(victim, `${path}.cordon-${pid}.tmp`);
    for (const n of [...names].slice(0, 10)) symlinkSync(victim, n);
    writeFileAtomic(path, 'mine\n');
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readFileSync(path, 'utf8')).toBe('mine\n');
  });

  it('sets the mode exactly whatever the umask', () => {
    const dir = temp();
    const old = process.umask(0o077);
    try {
      writeFileAtomic(join(dir, 'f'), 'x', { mode: 0o640 });
    } finally {
      process.umask(old);
    }
    expect(statSync(join(dir, 'f')).mode & 0o777).toBe(0o640);
  });
});

describe('renameOver: a rename over a file held open on Windows', () => {
  const busy = (code: string) => Object.assign(new Error(`rename: ${code}`), { code });

  it('on win32 retries EPERM, EACCES and EBUSY until the holder lets go, then renames', () => {
    for (const code of ['EPERM', 'EACCES', 'EBUSY']) {
      let calls = 0;
      renameOver('a', 'b', 'win32', () => {
        if (++calls < 4) throw busy(code);
      });
      expect(calls).toBe(4);
    }
  });

  it('on win32 gives up after about 1.5 s of waits and throws the last error; other errors at once', () => {
    let calls = 0;
    const t0 = Date.now();
    expect(() => renameOver('a', 'b', 'win32', () => {
      calls++;
      throw busy('EPERM');
    })).toThrow('rename: EPERM');
    expect(calls).toBe(9);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_000); // the waits happened
    calls = 0;
    expect(() => renameOver('a', 'b', 'win32', () => {
      calls++;
      throw busy('ENOENT');
    })).toThrow('rename: ENOENT');
    expect(calls).toBe(1);
  });

  it('elsewhere tries once, and really renames with the default call', () => {
    let calls = 0;
    expect(() => renameOver('a', 'b', 'linux', () => {
      calls++;
      throw busy('EPERM');
    })).toThrow('rename: EPERM');
    expect(calls).toBe(1);
    const dir = mkdtempSync(join(tmpdir(), 'cordon-rename-'));
    writeFileSync(join(dir, 'from'), 'new');
    writeFileSync(join(dir, 'to'), 'old');
    renameOver(join(dir, 'from'), join(dir, 'to'));
    expect(readFileSync(join(dir, 'to'), 'utf8')).toBe('new');
    rmSync(dir, { recursive: true, force: true });
  });
});
