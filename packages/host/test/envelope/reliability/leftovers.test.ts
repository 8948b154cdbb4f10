import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCordon } from '../../../../../test/support/cli.js';
import { cleanPrivateTempDirs, privateTempDir, processStartTicks } from '../../../src/io/private-temp.js';
import { armWith, repo, tempDir, write } from '../support.js';
import { cordonInjected, HAVE_STRACE, wasKilled } from './strace.js';

/**
 * Issue 13 "Also": a killed check's private `cordon-git-*` directory (with a hard link to the
 * index) and killed writers' `*.tmp` files are removed by the next run; only what is cordon's
 * and whose owner process is gone.
 */

function cliEnv(tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
  for (const key of ['NODE_ENV', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) delete env[key];
  return env;
}

async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

describe.skipIf(!HAVE_STRACE)('leftovers of killed cordon processes', () => {
  it('a check killed while its private git dir exists (index linked in) and one killed before renaming audit.json: the next check removes both', async () => {
    const tmp = tempDir('tmp');
    const env = cliEnv(tmp);
    const armed = async () => {
      const dir = repo({ 'src/a.txt': 'a\n' });
      await armWith(dir, { allow: ['src/**'] });
      write(dir, { 'src/a.txt': 'b\n' });
      return dir;
    };
    // One check first writes what a first run writes once (plugin index, code cache), so below
    // rename #1 publishes audit.json and link #1 puts the index into the private git dir.
    expect((await runCordon(['check'], { cwd: await armed(), env })).exitCode).toBe(0);
    const a = await armed();
    const killed = await cordonInjected('rename:signal=KILL:when=1', ['check'], { cwd: a, env });
    expect(wasKilled(killed), killed.stderr).toBe(true);
    expect(readdirSync(join(a, '.cordon')).filter((n) => n.endsWith('.tmp')), `${readdirSync(join(a, '.cordon'))} ${readdirSync(join(a, '.git'))} ${killed.stderr}`).toHaveLength(1);
    const b = await armed();
    expect(wasKilled(await cordonInjected('link:signal=KILL:when=1', ['check'], { cwd: b, env }))).toBe(true);
    expect(readdirSync(tmp).filter((n) => n.startsWith('cordon-git-'))).toHaveLength(1);
    const r = await runCordon(['check'], { cwd: a, env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(tmp).filter((n) => n.startsWith('cordon-'))).toEqual([]);
    expect(readdirSync(join(a, '.cordon')).sort()).toEqual(['audit.json', 'config.json', 'snapshot.json', 'state.json']);
  }, 300_000);

  it('a lock taker killed between writing its temp file and linking it: the next command removes the temp file', async () => {
    const dir = repo({ 'src/a.txt': 'a\n' });
    await armWith(dir, { allow: ['src/**'] });
    const env = cliEnv(tempDir('tmp'));
    // The lock's link is the first link of `status`-free reset.
    expect(wasKilled(await cordonInjected('link:signal=KILL:when=1', ['reset'], { cwd: dir, env }))).toBe(true);
    expect(readdirSync(join(dir, '.git')).filter((n) => n.startsWith('.cordon.lock.'))).toHaveLength(1);
    expect((await runCordon(['reset'], { cwd: dir, env })).exitCode).toBe(0);
    expect(readdirSync(join(dir, '.git')).filter((n) => n.includes('cordon'))).toEqual([]);
  });
});

describe('cleanPrivateTempDirs', () => {
  it('removes only dirs of that exact shape whose owner is gone; keeps live owners, other shapes and files', async () => {
    const base = tempDir('tmpdirs');
    const dead = await deadPid();
    const mine = privateTempDir('cordon-git-', base);
    writeFileSync(join(mine, 'index'), 'x');
    const deadDir = `cordon-git-${dead}-12345-abcDEF`;
    mkdirSync(join(base, deadDir, 'info'), { recursive: true });
    // A live process, but the start time in the name is not its own: that process is gone.
    const recycled = `cordon-git-${process.pid}-${Number(processStartTicks(process.pid)) + 1}-zzzzzz`;
    mkdirSync(join(base, recycled));
    const keep = ['cordon-git-notes', `cordon-git-${dead}-1-short`, 'cordon-gitx-1-1-abcdef', 'other-dir'];
    for (const name of keep) mkdirSync(join(base, name));
    writeFileSync(join(base, `cordon-git-${dead}-1-abcdef`), 'a file, not a dir');
    const removed = cleanPrivateTempDirs('cordon-git-', base);
    expect(removed.sort()).toEqual([deadDir, recycled].sort());
    const left = readdirSync(base).sort();
    expect(left).toEqual([...keep, `cordon-git-${dead}-1-abcdef`, mine.slice(base.length + 1)].sort());
  });

  it('takes several prefixes in one listing: each removes its own shape only', async () => {
    const base = tempDir('tmpdirs-many');
    const dead = await deadPid();
    const git = `cordon-git-${dead}-7-abcdef`;
    const rules = `cordon-rules-${dead}-7-ghijkl`;
    const other = `cordon-other-${dead}-7-mnopqr`;
    for (const name of [git, rules, other]) mkdirSync(join(base, name));
    expect(cleanPrivateTempDirs(['cordon-git-', 'cordon-rules-'], base).sort()).toEqual([git, rules].sort());
    expect(readdirSync(base)).toEqual([other]);
  });

  it('a name whose pid or start is not written as cordon writes it (0, 07, leading zeros) is not cordon\'s and stays', async () => {
    const base = tempDir('tmpdirs-zeros');
    const dead = await deadPid();
    const names = ['cordon-git-0-7-abcdef', `cordon-git-0${dead}-7-abcdef`, `cordon-git-${dead}-07-abcdef`, 'cordon-git-99999999999999999999-7-abcdef'];
    for (const name of names) mkdirSync(join(base, name));
    expect(cleanPrivateTempDirs('cordon-git-', base)).toEqual([]);
    expect(readdirSync(base).sort()).toEqual([...names].sort());
  });
});
