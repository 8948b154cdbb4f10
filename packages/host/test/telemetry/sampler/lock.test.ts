import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { identify } from '../../../src/telemetry/sampler/identity.js';
import { acquireSamplerLock, highestGeneration, lockPath, readLockOwner, recordLockOwner } from '../../../src/telemetry/sampler/lock.js';
import { REPO_ROOT } from '../../../../../test/support/cli.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid that is certainly not running: a child that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const c = spawn('true');
  await new Promise((r) => c.on('exit', r));
  return c.pid!;
}

describe('sampler lock', () => {
  it('is taken by the first caller; the next one sees the live owner', () => {
    const me = identify(process.pid)!;
    expect(acquireSamplerLock(dir, me)).toEqual({ acquired: true, generation: 1 });
    const second = acquireSamplerLock(dir, me);
    expect(second).toMatchObject({ acquired: false, generation: 1, owner: { pid: process.pid, role: 'hook' } });
  });

  it('moves to the next generation when the owner is dead, never deleting the old file', async () => {
    const dead = await deadPid();
    writeFileSync(lockPath(dir, 1), JSON.stringify({ pid: dead, start: 1, role: 'sampler', generation: 1, at: 0 }));
    expect(acquireSamplerLock(dir, identify(process.pid)!)).toEqual({ acquired: true, generation: 2 });
    expect(readdirSync(dir).sort()).toEqual(['sampler.lock.1', 'sampler.lock.2']);
    expect(highestGeneration(dir)).toBe(2);
  });

  it('treats a live pid with another start time as dead (recycled pid)', () => {
    const me = identify(process.pid)!;
    writeFileSync(lockPath(dir, 1), JSON.stringify({ pid: process.pid, start: (me.start ?? 0) + 1, role: 'sampler', generation: 1, at: 0 }));
    expect(acquireSamplerLock(dir, me).acquired).toBe(process.platform === 'linux');
  });

  it('waits on a lock that is still being written, and takes over one left unparseable', () => {
    writeFileSync(lockPath(dir, 1), '');
    expect(acquireSamplerLock(dir, identify(process.pid)!)).toMatchObject({ acquired: false, generation: 1 });
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPath(dir, 1), old, old);
    expect(acquireSamplerLock(dir, identify(process.pid)!)).toEqual({ acquired: true, generation: 2 });
  });

  it('reads no lock through a link, from a FIFO or past 64 KiB: such a file is no owner', () => {
    const me = identify(process.pid)!;
    const record = JSON.stringify({ ...me, role: 'sampler', generation: 1, at: 5 });
    const elsewhere = join(dir, 'elsewhere.json');
    writeFileSync(elsewhere, record);
    symlinkSync(elsewhere, lockPath(dir, 1));
    expect(readLockOwner(dir, 1)).toBeUndefined();
    rmSync(lockPath(dir, 1));
    execFileSync('mkfifo', [lockPath(dir, 1)]);
    // Opened non-blocking: a FIFO with no writer returns at once instead of hanging the hook.
    expect(readLockOwner(dir, 1)).toBeUndefined();
    rmSync(lockPath(dir, 1));
    writeFileSync(lockPath(dir, 1), `${record}${' '.repeat(64 * 1024)}`);
    expect(readLockOwner(dir, 1)).toBeUndefined();
    writeFileSync(lockPath(dir, 1), record);
    expect(readLockOwner(dir, 1)).toEqual(JSON.parse(record));
  });

  it('counts only generations written as cordon writes them: 1e3, 0x10, 07, 1.0, " 7" are ignored and kept', async () => {
    const dead = await deadPid();
    const planted = ['sampler.lock.1e3', 'sampler.lock.0x10', 'sampler.lock.07', 'sampler.lock.1.0', 'sampler.lock. 7', 'sampler.lock.+9', 'sampler.lock.', 'sampler.lock.0', 'sampler.lock.99999999999999999999'];
    for (const name of planted) writeFileSync(join(dir, name), JSON.stringify({ pid: dead, role: 'sampler', generation: 1000, at: 0 }));
    expect(highestGeneration(dir)).toBe(0);
    writeFileSync(lockPath(dir, 2), JSON.stringify({ pid: dead, role: 'sampler', generation: 2, at: 0 }));
    expect(highestGeneration(dir)).toBe(2);
    expect(acquireSamplerLock(dir, identify(process.pid)!)).toEqual({ acquired: true, generation: 3 });
    expect(readdirSync(dir).sort()).toEqual([...planted, 'sampler.lock.2', 'sampler.lock.3'].sort());
  });

  it('reads a generation name as the number it spells only when String(n) spells it so', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.nat().map(String), fc.double().map(String)), { maxLength: 6 }), (suffixes) => {
        const here = mkdtempSync(join(dir, 'p-'));
        let expected = 0;
        for (const suffix of suffixes) {
          if (suffix.includes('/') || suffix === '.' || suffix === '..' || suffix.includes('\0')) continue;
          writeFileSync(join(here, `sampler.lock.${suffix}`), '');
          const n = Number(suffix);
          if (Number.isSafeInteger(n) && n > 0 && String(n) === suffix) expected = Math.max(expected, n);
        }
        expect(highestGeneration(here)).toBe(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a generation past the largest safe integer instead of looping on it', () => {
    writeFileSync(lockPath(dir, Number.MAX_SAFE_INTEGER), '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPath(dir, Number.MAX_SAFE_INTEGER), old, old);
    expect(highestGeneration(dir)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => acquireSamplerLock(dir, identify(process.pid)!)).toThrow(/generation/);
  });

  it('records the sampler as owner atomically', () => {
    const me = identify(process.pid)!;
    acquireSamplerLock(dir, me);
    recordLockOwner(dir, { ...me, role: 'sampler', generation: 1, at: 5 });
    expect(readLockOwner(dir, 1)).toEqual({ ...me, role: 'sampler', generation: 1, at: 5 });
    expect(readdirSync(dir)).toEqual(['sampler.lock.1']);
  });

  it('lets exactly one of 40 concurrent processes win, stale generation included', async () => {
    writeFileSync(lockPath(dir, 1), JSON.stringify({ pid: await deadPid(), role: 'sampler', generation: 1, at: 0 }));
    const lockModule = pathToFileURL(join(REPO_ROOT, 'packages/host/dist/telemetry/sampler/lock.js')).href;
    const idModule = pathToFileURL(join(REPO_ROOT, 'packages/host/dist/telemetry/sampler/identity.js')).href;
    const code = `const { acquireSamplerLock } = await import(${JSON.stringify(lockModule)}); const { identify } = await import(${JSON.stringify(idModule)});
      await new Promise((r) => setTimeout(r, Math.max(0, Number(process.env.AT) - Date.now())));
      const r = acquireSamplerLock(${JSON.stringify(dir)}, identify(process.pid));
      process.stdout.write(JSON.stringify(r) + '\\n'); setInterval(() => {}, 1e6);`;
    // Every process stays alive (a live owner) until all have answered, then they are killed.
    // A child that starts after `at` (a loaded machine) waits 0 ms, not a negative delay: Node 24
    // prints a TimeoutNegativeWarning on stderr for that, which the check below refuses.
    const at = String(Date.now() + 2000);
    const children = Array.from({ length: 40 }, () => spawn(process.execPath, ['--input-type=module', '-e', code], { env: { ...process.env, AT: at }, stdio: ['ignore', 'pipe', 'pipe'] }));
    const stderr = children.map(() => '');
    children.forEach((c, i) => c.stderr!.on('data', (b) => (stderr[i] += b)));
    const closed = Promise.all(children.map((c) => new Promise((r) => c.once('close', r))));
    let results: Array<{ acquired: boolean; generation: number }>;
    try {
      results = await Promise.all(
        children.map((c, i) => {
          let out = '';
          return new Promise<{ acquired: boolean; generation: number }>((resolve, reject) => {
            c.stdout!.on('data', (b) => {
              out += b;
              if (out.includes('\n')) resolve(JSON.parse(out));
            });
            c.on('exit', (code) => reject(new Error(`lock child exited with ${code}: ${stderr[i]}`)));
          });
        }),
      );
    } finally {
      for (const c of children) c.kill('SIGKILL');
    }
    await closed;
    expect(stderr.filter(Boolean)).toEqual([]);
    expect(results.filter((r) => r.acquired)).toHaveLength(1);
    expect(results.every((r) => r.generation === 2)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['sampler.lock.1', 'sampler.lock.2']);
  });
});
