import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/index.js';
import { acquireLock, isStale, processStart, readLock, withLock } from '../../src/envelope/lock.js';
import { discoverRepo } from '../../src/envelope/git/repo.js';
import { check } from '../../src/envelope/check.js';
import { armWith, repo, tempDir } from './support.js';

const children: Array<{ kill(): void }> = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

/** A process that has exited: its pid is free (or reused, with another start time). */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

describe('repository lock (the BEKO2210/SkillQuarry cordon T4, R7)', () => {
  it('lives at git rev-parse --git-path cordon.lock, holds the owner and is removed on release', async () => {
    const dir = repo();
    const loc = await discoverRepo(dir);
    expect(loc.lockFile).toBe(join(dir, '.git', 'cordon.lock'));
    const lock = acquireLock(loc.lockFile, 'test');
    expect(readLock(loc.lockFile)).toMatchObject({ pid: process.pid, host: hostname(), command: 'test', nonce: lock.record.nonce });
    lock.release();
    lock.release();
    expect(existsSync(loc.lockFile)).toBe(false);
  });

  it('T4: a second acquisition fails at once with a lock error naming the holder', () => {
    const path = join(tempDir(), 'cordon.lock');
    const lock = acquireLock(path, 'run');
    // At once: the call is synchronous and the holder is this very thread, which cannot release
    // while the call runs; a call that waited for the lock would never return.
    expect(() => acquireLock(path, 'check')).toThrow(expect.objectContaining({ code: ERROR_CODES.LOCK_HELD, message: expect.stringContaining(`run, pid ${process.pid}`) }));
    lock.release();
    acquireLock(path, 'check').release();
  });

  it('a lock held by another live process is never taken over', async () => {
    const path = join(tempDir(), 'cordon.lock');
    const child = spawn('sleep', ['30']);
    children.push(child);
    await new Promise((r) => child.once('spawn', r));
    writeFileSync(path, JSON.stringify({ pid: child.pid, host: hostname(), start: processStart(child.pid!), nonce: 'other', command: 'run', since: new Date().toISOString() }));
    expect(() => acquireLock(path, 'check')).toThrow(expect.objectContaining({ code: ERROR_CODES.LOCK_HELD }));
    expect(readLock(path)?.nonce).toBe('other');
  });

  it('takes over a lock whose process died', async () => {
    const path = join(tempDir(), 'cordon.lock');
    const pid = await deadPid();
    writeFileSync(path, JSON.stringify({ pid, host: hostname(), start: null, nonce: 'dead', command: 'run', since: new Date().toISOString() }));
    expect(isStale(readLock(path)!)).toBe(true);
    const lock = acquireLock(path, 'check');
    expect(readLock(path)?.nonce).toBe(lock.record.nonce);
    lock.release();
  });

  it('takes over a lock whose pid now belongs to another process (different start time)', () => {
    const path = join(tempDir(), 'cordon.lock');
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), start: 'another-boot:1', nonce: 'reused', command: 'run', since: new Date().toISOString() }));
    const lock = acquireLock(path, 'check');
    expect(readLock(path)?.nonce).toBe(lock.record.nonce);
    lock.release();
  });

  it('never takes over a lock from another host', async () => {
    const path = join(tempDir(), 'cordon.lock');
    writeFileSync(path, JSON.stringify({ pid: await deadPid(), host: 'elsewhere.invalid', start: null, nonce: 'remote', command: 'run', since: 'x' }));
    expect(() => acquireLock(path, 'check')).toThrow(/another cordon process owns this repository/);
    expect(() => acquireLock(path, 'check')).toThrow(`it runs on host elsewhere.invalid: wait for it to finish there, or stop it there; a lock from another host is never taken over, so once it has stopped remove the lock file (rm ${JSON.stringify(path)})`);
  });

  it('withLock releases after an error', async () => {
    const path = join(tempDir(), 'cordon.lock');
    await expect(withLock(path, 'x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(path)).toBe(false);
  });

  it('R7: check refuses while another process holds the lock; the lock is not inside .cordon', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    const loc = await discoverRepo(dir);
    const holder = spawn(process.execPath, ['-e', `
      const fs = require('fs');
      fs.writeFileSync(${JSON.stringify(loc.lockFile)}, JSON.stringify({pid: process.pid, host: require('os').hostname(), start: null, nonce: 'child', command: 'run', since: 'now'}));
      console.log('held'); setTimeout(() => {}, 30000);`]);
    children.push(holder);
    await new Promise((r) => holder.stdout.once('data', r));
    await expect(check({ repo: dir })).rejects.toMatchObject({ code: ERROR_CODES.LOCK_HELD });
    expect(loc.lockFile.includes('.cordon')).toBe(false);
    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    // The holder died without releasing: the next check takes the stale lock over.
    const result = await check({ repo: dir });
    expect(result.audit.passed).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, '.cordon', 'state.json'), 'utf8')).phase).toBe('accepted');
  });
});

describe('linked work trees', () => {
  it('have their own lock; the exclude file is shared', async () => {
    const { git } = await import('./support.js');
    const dir = repo();
    const other = join(tempDir('wt'), 'linked');
    git(dir, 'worktree', 'add', '-q', other);
    const main = await discoverRepo(dir);
    const linked = await discoverRepo(other);
    expect(linked.lockFile).toBe(join(dir, '.git', 'worktrees', 'linked', 'cordon.lock'));
    expect(linked.excludeFile).toBe(main.excludeFile);
    await armWith(other, { allow: ['src/**'] });
    const held = acquireLock(main.lockFile, 'main');
    try {
      expect((await check({ repo: other })).audit.passed).toBe(true);
    } finally {
      held.release();
    }
  });
});
