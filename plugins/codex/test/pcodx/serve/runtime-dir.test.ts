import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanStaleServes } from '../../../src/pcodx/serve/runtime-dir.js';

// `pcodx serve` looks at every earlier serve's directory when it starts. A directory whose
// owner.json is a FIFO or a device must not hold that start: it reads as a directory without a
// record (removed once older than the grace period, as one a serve never finished writing).

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cordon-runtime-dir-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('cleanStaleServes', () => {
  it('a FIFO or /dev/zero as owner.json: the start goes on, and the old directory is removed', async () => {
    const serves = join(root, 'pcodx-serve');
    mkdirSync(serves, { recursive: true, mode: 0o700 });
    const fifoDir = join(serves, 's-fifo');
    const zeroDir = join(serves, 's-zero');
    const youngDir = join(serves, 's-young');
    for (const dir of [fifoDir, zeroDir, youngDir]) mkdirSync(dir, { mode: 0o700 });
    execFileSync('mkfifo', [join(fifoDir, 'owner.json')]);
    symlinkSync('/dev/zero', join(zeroDir, 'owner.json'));
    execFileSync('mkfifo', [join(youngDir, 'owner.json')]);
    const old = new Date(Date.now() - 5 * 60_000);
    for (const dir of [fifoDir, zeroDir]) utimesSync(dir, old, old);
    const logged: string[] = [];
    const removed = await cleanStaleServes(root, (event) => logged.push(event));
    expect(removed).toBe(2);
    expect([existsSync(fifoDir), existsSync(zeroDir), existsSync(youngDir)]).toEqual([false, false, true]);
    expect(logged).toEqual(['stale_serve_cleaned', 'stale_serve_cleaned']);
  }, 30_000);
});
