import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/errors/index.js';
import { acquireLock, cleanLockLeftovers, inspectLock, processStart, readLock } from '../../../src/envelope/lock.js';
import { discoverRepo } from '../../../src/envelope/git/repo.js';
import { check } from '../../../src/envelope/check.js';
import { armWith, repo, tempDir } from '../support.js';

/** Issue 13 item 14: an empty or unparseable lock file never blocks a repository forever. */

async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

describe('an unreadable .git/cordon.lock', () => {
  it('an empty lock (the example) is taken over: check runs and the lock is ours, then gone', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    const loc = await discoverRepo(dir);
    writeFileSync(loc.lockFile, '');
    const result = await check({ repo: dir });
    expect(result.audit.passed).toBe(true);
    expect(existsSync(loc.lockFile)).toBe(false);
  });

  it('any regular file that holds no lock record is taken over (property)', () => {
    const path = join(tempDir(), 'cordon.lock');
    const notRecord = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
      fc.string().map((t) => Buffer.from(t)),
      fc.constantFrom('{}', '[]', 'null', '{"pid":"1","host":"h","nonce":"n"}', '{"pid":0,"host":"h","nonce":"n"}', '{"pid":1,"host":"h"}', '{"pid": 12').map((t) => Buffer.from(t)),
    ).filter((b) => inspectBytes(b) !== 'record');
    fc.assert(
      fc.property(notRecord, (bytes) => {
        writeFileSync(path, bytes);
        expect(inspectLock(path).kind).toBe('unreadable');
        const lock = acquireLock(path, 'check');
        expect(readLock(path)?.nonce).toBe(lock.record.nonce);
        lock.release();
        expect(existsSync(path)).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('a lock path that is not a regular file is never touched: the refusal says what it is and the way out', () => {
    const base = tempDir();
    const cases: Array<[string, (p: string) => void, RegExp]> = [
      ['directory', (p) => mkdirSync(p), /not a regular file/],
      ['symlink', (p) => symlinkSync('/dev/zero', p), /symbolic link/],
      ['fifo', (p) => spawnSyncOk('mkfifo', [p]), /not a regular file/],
    ];
    for (const [name, make, why] of cases) {
      const path = join(base, `${name}.lock`);
      make(path);
      let error: unknown;
      try {
        acquireLock(path, 'check');
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: ERROR_CODES.LOCK_HELD, message: expect.stringMatching(why) });
      expect((error as Error).message).toContain(`remove it (rm "${path}")`);
      expect(existsSync(path) || name === 'symlink').toBe(true);
    }
  });

  it('a live holder is still never taken over, and its lock stays byte for byte', async () => {
    const path = join(tempDir(), 'cordon.lock');
    const child = spawn('sleep', ['30']);
    await new Promise((r) => child.once('spawn', r));
    try {
      const text = JSON.stringify({ pid: child.pid, host: hostname(), start: processStart(child.pid!), nonce: 'other', command: 'run', since: 'now' });
      writeFileSync(path, text);
      expect(() => acquireLock(path, 'check')).toThrow(/another cordon process owns this repository \(run, pid/);
      expect(readFileSync(path, 'utf8')).toBe(text);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('the lock is published whole: its temp file is exclusive, unpredictable, named by pid, and gone afterwards', () => {
    const dir = tempDir();
    const path = join(dir, 'cordon.lock');
    // A planted link under the old predictable name and one under every guessable pid name changes nothing.
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'keep');
    symlinkSync(victim, `${path}.${process.pid}.tmp`);
    const lock = acquireLock(path, 'arm');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, command: 'arm' });
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(readdirSync(dir).sort()).toEqual(['cordon.lock', `cordon.lock.${process.pid}.tmp`, 'victim'].sort());
    lock.release();
  });

  it('leftovers of killed lock takers are removed when their pid is gone, kept while it runs', async () => {
    const dir = tempDir();
    const path = join(dir, 'cordon.lock');
    const dead = await deadPid();
    const deadTemp = `.cordon.lock.${dead}.${'a'.repeat(24)}.tmp`;
    const liveTemp = `.cordon.lock.${process.pid}.${'b'.repeat(24)}.tmp`;
    const deadAside = `cordon.lock.stale-${dead}-${'c'.repeat(12)}`;
    const foreign = '.cordon.lock.notes.tmp';
    for (const name of [deadTemp, liveTemp, deadAside, foreign]) writeFileSync(join(dir, name), 'x');
    expect(cleanLockLeftovers(path).sort()).toEqual([deadAside, deadTemp].sort());
    expect(readdirSync(dir).sort()).toEqual([foreign, liveTemp].sort());
  });

  it('a leftover name whose pid is not written as cordon writes it (0, 07, past the safe integers) is not cordon\'s and stays', async () => {
    const dir = tempDir();
    const path = join(dir, 'cordon.lock');
    const dead = await deadPid();
    const names = [`.cordon.lock.0.${'a'.repeat(24)}.tmp`, `.cordon.lock.0${dead}.${'a'.repeat(24)}.tmp`, `cordon.lock.stale-0-${'c'.repeat(12)}`, `cordon.lock.stale-0${dead}-${'c'.repeat(12)}`, `cordon.lock.stale-99999999999999999999-${'c'.repeat(12)}`];
    for (const name of names) writeFileSync(join(dir, name), 'x');
    expect(cleanLockLeftovers(path)).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual([...names].sort());
  });
});

function inspectBytes(bytes: Buffer): string {
  const dir = tempDir();
  const p = join(dir, 'probe.lock');
  writeFileSync(p, bytes);
  return inspectLock(p).kind;
}

function spawnSyncOk(cmd: string, args: string[]): void {
  const { status } = spawnSync(cmd, args);
  if (status !== 0) throw new Error(`${cmd} failed`);
}
