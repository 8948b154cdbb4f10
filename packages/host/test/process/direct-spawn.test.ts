import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canSpawnDirect, spawnDirect, type DirectChild } from '../../src/process/direct-spawn.js';

// `control run` starts a command through libuv's process handle instead of child_process
// (src/process/direct-spawn.ts). What the command sees and how its end is reported must be what
// child_process would give: each case runs both ways and compares.

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cordon-direct-spawn-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const major = Number(process.versions.node.split('.')[0]);

function started(options: Parameters<typeof spawnDirect>[0]): DirectChild {
  const child = spawnDirect(options);
  if (!child) throw new Error('spawnDirect declined');
  return child;
}

/** What child_process.spawn reports for the same command: its exit, or its start error. */
function viaChildProcess(file: string, args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv; detached?: boolean }): Promise<{ code: number | null; signal: NodeJS.Signals | null } | NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: 'inherit', ...options });
    child.once('error', resolve);
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

describe('spawnDirect', () => {
  it('is used on the Node majors whose binding it knows (20, 22, 24), not elsewhere', () => {
    expect(canSpawnDirect()).toBe(process.platform !== 'win32' && [20, 22, 24].includes(major));
  });

  it.runIf(canSpawnDirect())('reports exit codes and signals as child_process does', async () => {
    const env = { PATH: process.env.PATH };
    for (const script of ['exit 0', 'exit 7', 'exit 255', 'kill -TERM $$', 'kill -KILL $$', 'kill -USR1 $$']) {
      const direct = await started({ file: 'sh', args: ['sh', '-c', script], cwd: undefined, env, detached: false }).exit;
      expect({ script, ...direct }).toEqual({ script, ...(await viaChildProcess('sh', ['-c', script], { env })) });
    }
  });

  it.runIf(canSpawnDirect())('passes argv, the working directory and exactly the defined variables; looks the program up on the child PATH', async () => {
    const out = join(dir, 'seen.txt');
    const bin = join(dir, 'bin');
    const script = `#!/bin/sh\n{ pwd; printf '%s|' "$0" "$@"; echo; env | grep '^CORDON_T_' | sort; } > "${out}"\n`;
    writeFileSync(join(dir, 'show'), script);
    chmodSync(join(dir, 'show'), 0o755);
    rmSync(bin, { force: true });
    const env = { PATH: `${dir}:/usr/bin:/bin`, CORDON_T_A: 'one two', CORDON_T_B: '', CORDON_T_C: undefined, CORDON_T_D: 'x=y' };
    const r = await started({ file: 'show', args: ['show', 'a b', '', '--x'], cwd: '/', env, detached: false }).exit;
    expect(r).toEqual({ code: 0, signal: null });
    const direct = readFileSync(out, 'utf8');
    expect(direct).toBe(`/\n${join(dir, 'show')}|a b||--x|\nCORDON_T_A=one two\nCORDON_T_B=\nCORDON_T_D=x=y\n`);
    await viaChildProcess('show', ['a b', '', '--x'], { cwd: '/', env });
    expect(readFileSync(out, 'utf8')).toBe(direct);
  });

  it.runIf(canSpawnDirect())('without env, the command inherits this process environment as it stands, changes made through process.env included', async () => {
    const out = join(dir, 'env.txt');
    const saved = { ...process.env };
    try {
      process.env.CORDON_T_SET_NOW = 'set by this process';
      process.env.CORDON_T_EMPTY = '';
      delete process.env.HOME;
      const r = await started({ file: 'sh', args: ['sh', '-c', `env > '${out}'`], cwd: undefined, detached: false }).exit;
      expect(r).toEqual({ code: 0, signal: null });
      const seen = readFileSync(out, 'utf8').trim().split('\n').sort();
      await viaChildProcess('sh', ['-c', `env > '${out}'`], { env: process.env });
      expect(seen).toEqual(readFileSync(out, 'utf8').trim().split('\n').sort());
      expect(seen).toContain('CORDON_T_SET_NOW=set by this process');
      expect(seen).toContain('CORDON_T_EMPTY=');
      expect(seen.some((pair) => pair.startsWith('HOME='))).toBe(false);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });

  it.runIf(canSpawnDirect())('a detached command leads a session of its own; otherwise it shares this one', async () => {
    const out = join(dir, 'ids.txt');
    const env = { PATH: process.env.PATH };
    // /proc/<pid>/stat of the command's own child (same group and session): after the name's
    // closing parenthesis, the fields are state, ppid, pgrp, session.
    const script = `cat /proc/self/stat >> '${out}'`;
    const own = started({ file: 'sh', args: ['sh', '-c', script], cwd: undefined, env, detached: true });
    await own.exit;
    const shared = started({ file: 'sh', args: ['sh', '-c', script], cwd: undefined, env, detached: false });
    await shared.exit;
    const ids = (line: string) => line.slice(line.lastIndexOf(')') + 2).split(' ').slice(2, 4).map(Number);
    const [detachedLine, sharedLine] = readFileSync(out, 'utf8').trim().split('\n');
    expect(ids(detachedLine!)).toEqual([own.pid, own.pid]);
    const mine = readFileSync('/proc/self/stat', 'utf8');
    expect(ids(sharedLine!)).toEqual(ids(mine));
  });

  it.runIf(canSpawnDirect())('a command that cannot start throws the error child_process would carry (ENOENT, EACCES)', async () => {
    writeFileSync(join(dir, 'not-executable'), '#!/bin/sh\n');
    chmodSync(join(dir, 'not-executable'), 0o644);
    const env = { PATH: `${dir}:/usr/bin:/bin` };
    for (const file of ['no-such-command-here', join(dir, 'missing'), 'not-executable', join(dir, 'not-executable')]) {
      let thrown: NodeJS.ErrnoException | undefined;
      try {
        spawnDirect({ file, args: [file, 'arg'], cwd: undefined, env, detached: false });
      } catch (error) {
        thrown = error as NodeJS.ErrnoException;
      }
      const expected = (await viaChildProcess(file, ['arg'], { env })) as NodeJS.ErrnoException;
      expect(thrown, file).toBeInstanceOf(Error);
      const pick = (e: NodeJS.ErrnoException) => ({ message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, path: e.path, spawnargs: (e as { spawnargs?: unknown }).spawnargs });
      expect(pick(thrown!)).toEqual(pick(expected));
    }
  });

  it.runIf(canSpawnDirect())('declines (undefined) rather than pass a NUL byte on; starts nothing', () => {
    const marker = join(dir, 'ran');
    const env = { PATH: process.env.PATH };
    expect(spawnDirect({ file: 'sh', args: ['sh', '-c', `touch ${marker}`, 'a\0b'], cwd: undefined, env, detached: false })).toBeUndefined();
    expect(spawnDirect({ file: 'sh', args: ['sh', '-c', `touch ${marker}`], cwd: undefined, env: { ...env, BAD: 'x\0y' }, detached: false })).toBeUndefined();
    expect(() => readFileSync(marker)).toThrow();
  });
});
