import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors/index.js';
import { killGroup, runManaged, signalGroup } from '../../src/envelope/process.js';
import { canSpawnDirect } from '../../src/process/direct-spawn.js';
import { alive } from '../../../../test/support/process.js';
import { waitFor } from '../../../../test/support/wait.js';
import { tempDir } from './support.js';

const sh = (script: string) => ['sh', '-c', script];
const opts = () => ({ cwd: tempDir('proc'), env: process.env });

// Every case runs both ways a managed child starts: through libuv's process and pipe handles
// (src/process/direct-spawn.ts, the default where the binding is known) and through
// child_process (CORDON_DIRECT_SPAWN=off, and always when input is written to stdin).
describe.each([
  { route: 'the process handle', off: undefined },
  { route: 'child_process', off: 'off' },
])('managed child processes through $route (the BEKO2210/SkillQuarry cordon P1–P7, H07, H08)', ({ off }) => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.CORDON_DIRECT_SPAWN;
    if (off) process.env.CORDON_DIRECT_SPAWN = off;
    else delete process.env.CORDON_DIRECT_SPAWN;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.CORDON_DIRECT_SPAWN;
    else process.env.CORDON_DIRECT_SPAWN = saved;
  });

  it('starts through the route it names', () => {
    expect(canSpawnDirect()).toBe(off === undefined && process.platform !== 'win32' && [20, 22, 24].includes(Number(process.versions.node.split('.')[0])));
  });

  it('P1: captures both streams and the exit code', async () => {
    const r = await runManaged(sh('printf out; printf err >&2; exit 5'), opts());
    expect(r.stdout.toString()).toBe('out');
    expect(r.stderr.toString()).toBe('err');
    expect(r.exitCode).toBe(5);
    expect(r.timedOut || r.outputLimited || r.outputNotClosed).toBe(false);
  });

  it('P2: refuses an output cap of 0, true or 1.5', async () => {
    for (const cap of [0, true, 1.5]) {
      await expect(runManaged(sh('true'), { ...opts(), outputCap: cap as number })).rejects.toMatchObject({ code: ERROR_CODES.PROCESS_ERROR });
    }
  });

  it('P3: refuses a timeout of 0, -1, true, NaN or Infinity', async () => {
    for (const t of [0, -1, true, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(runManaged(sh('true'), { ...opts(), timeoutMs: t as number })).rejects.toMatchObject({ code: ERROR_CODES.PROCESS_ERROR });
    }
  });

  it('P4: a missing executable is a process error naming it, and why once, in the words every command uses', async () => {
    await expect(runManaged(['cordon-no-such-binary-xyz'], opts())).rejects.toMatchObject({ code: ERROR_CODES.PROCESS_ERROR, message: "cannot start 'cordon-no-such-binary-xyz': not found on PATH", details: { errno: 'ENOENT' } });
    const dir = tempDir('noexec');
    const missing = join(dir, 'gone');
    await expect(runManaged([missing], opts())).rejects.toMatchObject({ message: `cannot start '${missing}': no such file` });
    const plain = join(dir, 'plain-file');
    writeFileSync(plain, 'echo hi\n', { mode: 0o644 });
    await expect(runManaged([plain], opts())).rejects.toMatchObject({ message: `cannot start '${plain}': not executable`, details: { errno: 'EACCES' } });
    // A directory fails with EACCES as a file without execute permission does: said apart.
    await expect(runManaged([dir], opts())).rejects.toMatchObject({ message: `cannot start '${dir}': is a directory`, details: { errno: 'EACCES' } });
  });

  it('P5/H07: a timeout kills the whole group, with SIGKILL when TERM is ignored', async () => {
    const dir = tempDir('grand');
    // The leader ignores TERM and starts a grandchild that ignores it too; both would last 5 minutes.
    const r = await runManaged(sh(`trap '' TERM; (trap '' TERM; sleep 300) & echo $! > ${dir}/grandchild; sleep 300`), { ...opts(), timeoutMs: 300 });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBe('SIGKILL');
    // Killed with the group: gone long before its 5 minutes (its reaper, init, may take a moment).
    const grandchild = Number(readFileSync(`${dir}/grandchild`, 'utf8'));
    await waitFor(() => !alive(grandchild), { what: `the grandchild ${grandchild} to be killed with the group` });
  });

  it('P6/H08: output over the cap keeps at most cap bytes and kills the child', async () => {
    // A time-out far beyond any load: what ends the child must be the cap.
    const r = await runManaged(sh('printf 123456; sleep 300'), { ...opts(), outputCap: 2, timeoutMs: 60_000 });
    expect(r.outputLimited).toBe(true);
    expect(r.stdout.toString()).toBe('12');
    expect(r.stdoutBytes).toBe(3);
    expect(r.signal).toBe('SIGTERM');
    expect(r.timedOut).toBe(false);
  });

  it('a stream past its cap keeps nothing more, however much the child writes before the signal lands', async () => {
    // The child writes about 1.3 MB at once, far more than the pipe holds, ignoring the TERM
    // for a moment; only the first cap + 1 bytes are kept and counted, head and tail alike.
    const r = await runManaged(sh("trap 'sleep 0.3; exit 1' TERM; printf done >&2; seq 1 200000; sleep 300"), { ...opts(), outputCap: 1000, keepBytes: 10, keepTailBytes: 10, timeoutMs: 60_000 });
    expect(r.outputLimited).toBe(true);
    expect(r.stdoutBytes).toBe(1001);
    const first = Buffer.from(Array.from({ length: 400 }, (_, i) => `${i + 1}\n`).join('')).subarray(0, 1001);
    expect(r.stdout.toString()).toBe(first.subarray(0, 10).toString());
    expect(r.stdoutTail.toString()).toBe(first.subarray(-10).toString());
    // The other stream is under its own cap: kept as it came (the shell may add that seq was terminated).
    expect(r.stderr.toString()).toMatch(/^done/);
  });

  it('P7a: pipes held open by a grandchild after exit are closed by killing the group', async () => {
    // The grandchild would hold the pipes for 5 minutes: waiting for them would end in the time-out.
    const r = await runManaged(sh('sleep 300 & echo started'), { ...opts(), timeoutMs: 60_000 });
    expect(r.exitCode).toBe(0);
    expect(r.outputNotClosed).toBe(true);
    expect(r.stdout.toString()).toBe('started\n');
    expect(r.timedOut).toBe(false);
  });

  it('P7b: killing a group that already exited is a no-op', async () => {
    const child = spawn('true', [], { detached: true, stdio: 'ignore' });
    await new Promise((r) => child.once('exit', r));
    await new Promise((r) => setTimeout(r, 50));
    expect(() => signalGroup(child, 'SIGTERM')).not.toThrow();
    await expect(killGroup(child)).resolves.toBeUndefined();
  });

  it('stdin is /dev/null unless input is given', async () => {
    expect((await runManaged(sh('cat; echo done'), opts())).stdout.toString()).toBe('done\n');
    expect((await runManaged(sh('cat'), { ...opts(), input: 'fed' })).stdout.toString()).toBe('fed');
  });

  it('streams a large output in order, every byte, with the head and tail kept', async () => {
    // 3 MiB in many reads: the pipe is read as it fills, and no chunk is lost, reordered or reused.
    const seen: Buffer[] = [];
    const r = await runManaged(['node', '-e', 'const b = Buffer.alloc(3 << 20); for (let i = 0; i < b.length; i++) b[i] = i % 251; process.stdout.write(b); process.stderr.write("e".repeat(100000))'], {
      ...opts(),
      keepBytes: 10,
      keepTailBytes: 5,
      onStdout: (chunk) => seen.push(Buffer.from(chunk)),
    });
    expect(r.exitCode).toBe(0);
    const all = Buffer.concat(seen);
    expect(all.length).toBe(3 << 20);
    expect(all.every((byte, i) => byte === i % 251)).toBe(true);
    expect(r.stdoutBytes).toBe(3 << 20);
    expect([...r.stdout]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect([...r.stdoutTail]).toEqual([...all.subarray(-5)]);
    expect(r.stderrBytes).toBe(100000);
    expect(r.stderr.toString()).toBe('e'.repeat(10));
  });

  it('a child killed by a signal reports it, and the environment and working directory are what was given', async () => {
    const dir = tempDir('envcwd');
    const r = await runManaged(sh('pwd; printf "%s" "$CORDON_T_X"; kill -USR1 $$'), { cwd: dir, env: { PATH: process.env.PATH, CORDON_T_X: 'a b=c' } });
    expect(r.signal).toBe('SIGUSR1');
    expect(r.exitCode).toBeNull();
    expect(r.stdout.toString()).toBe(`${dir}\na b=c`);
  });

  it('a working directory that does not exist is a start error naming the command and the directory', async () => {
    const gone = join(tempDir('gone'), 'missing');
    await expect(runManaged(['true'], { cwd: gone, env: process.env })).rejects.toMatchObject({ code: ERROR_CODES.PROCESS_ERROR, message: `cannot start 'true': its working directory ${gone} does not exist` });
  });

  it('onSpawn gets the child with its pid; exitCode and signalCode follow its end', async () => {
    let seen: { pid?: number; exitCode: number | null; signalCode: NodeJS.Signals | null } | undefined;
    const r = await runManaged(sh('exit 3'), { ...opts(), onSpawn: (child) => (seen = child) });
    expect(r.exitCode).toBe(3);
    expect(seen?.pid).toBeGreaterThan(0);
    expect(seen?.exitCode).toBe(3);
    expect(seen?.signalCode).toBeNull();
  });
});
