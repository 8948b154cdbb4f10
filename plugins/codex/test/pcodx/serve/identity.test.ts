import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { groupMembers, procStat, socketHolders, stillRunning, tcpListenerInodes, unixListenerInodes } from '../../../src/pcodx/serve/proc.js';
import { listenerState } from '../../../src/pcodx/serve/upstream.js';
import { startWatched } from '../../../src/pcodx/serve/watchdog.js';

// Who holds a listener, read from /proc: the proof `pcodx serve` needs before it relays anything.

let dir: string;
const servers: Server[] = [];
const children: ChildProcess[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pcodx-identity-'));
});
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  rmSync(dir, { recursive: true, force: true });
});

const listen = (target: { port: number; host: string } | string) =>
  new Promise<Server>((resolve) => {
    const server = createServer();
    servers.push(server);
    if (typeof target === 'string') server.listen(target, () => resolve(server));
    else server.listen(target.port, target.host, () => resolve(server));
  });
const ownGroup = () => procStat(process.pid)!.pgid;
/** A `sleep` in a process group of its own. */
const stranger = () => {
  const child = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
  children.push(child);
  return child.pid!;
};

it('reads pid, parent, group and start time, also for a command name holding ") ("', async () => {
  const self = procStat(process.pid)!;
  expect(self.pid).toBe(process.pid);
  expect(self.ppid).toBe(process.ppid);
  expect(self.start).toMatch(/^\d+$/);
  expect(stillRunning({ pid: process.pid, start: self.start })).toBe(true);
  // The same pid with another start time is another process (a reused pid).
  expect(stillRunning({ pid: process.pid, start: `${self.start}1` })).toBe(false);
  const odd = join(dir, 'a) b (c');
  symlinkSync('/bin/sleep', odd);
  const child = spawn(odd, ['600'], { stdio: 'ignore' });
  children.push(child);
  await new Promise((r) => child.once('spawn', r));
  const stat = procStat(child.pid!)!;
  expect(readFileSync(`/proc/${child.pid}/stat`, 'utf8')).toContain('(a) b (c)');
  expect([stat.ppid, stat.pgid]).toEqual([process.pid, ownGroup()]);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  expect(procStat(child.pid!)).toBeUndefined();
  expect(stillRunning({ pid: child.pid!, start: stat.start })).toBe(false);
});

it('finds the holder of a TCP listener: ours for our group, a stranger for another group, none for a closed port', async () => {
  const server = await listen({ port: 0, host: '127.0.0.1' });
  const port = (server.address() as { port: number }).port;
  const inodes = tcpListenerInodes('127.0.0.1', port);
  expect(inodes).toHaveLength(1);
  expect(socketHolders(inodes[0]!, [process.pid])).toEqual([process.pid]);
  expect(listenerState({ kind: 'tcp', host: '127.0.0.1', port }, ownGroup())).toBe('ours');
  expect(listenerState({ kind: 'tcp', host: '127.0.0.1', port }, stranger())).toBe('stranger');
  // Another loopback address with the same port is another socket.
  expect(tcpListenerInodes('127.0.0.2', port)).toEqual([]);
  await new Promise((r) => server.close(r));
  expect(listenerState({ kind: 'tcp', host: '127.0.0.1', port }, ownGroup())).toBe('none');
});

it('finds the holder of a unix listener, also through a link to it (as Codex makes), and only a listening one', async () => {
  const real = join(dir, 'real.sock');
  const link = join(dir, 'link.sock');
  expect(listenerState({ kind: 'unix', path: link }, ownGroup())).toBe('none');
  await listen(real);
  symlinkSync(real, link);
  expect(unixListenerInodes(real)).toHaveLength(1);
  expect(listenerState({ kind: 'unix', path: link }, ownGroup())).toBe('ours');
  expect(listenerState({ kind: 'unix', path: real }, stranger())).toBe('stranger');
  expect(unixListenerInodes(join(dir, 'other.sock'))).toEqual([]);
});

it('the watchdog reports the pid, stops the whole group when its pipe closes, and reports a binary that cannot start', async () => {
  // A shell that starts a grandchild: both are in the group the watchdog stops.
  const watched = startWatched({ bin: '/bin/sh', args: ['-c', 'sleep 600 & wait'], graceMs: 500 });
  const pid = await watched.pid;
  expect(procStat(pid)!.pgid).toBe(pid);
  expect(procStat(pid)!.ppid).toBe(watched.watchdog.pid);
  await watched.stop();
  expect(await watched.ended).toBe('signal SIGTERM');
  // Every process of the group (the grandchild too) is gone; a zombie waiting for PID 1 to reap it counts as gone.
  const deadline = Date.now() + 10_000;
  while (groupMembers(pid).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(groupMembers(pid)).toEqual([]);

  const missing = startWatched({ bin: join(dir, 'no-such-codex'), args: [] });
  await expect(missing.pid).rejects.toThrow(/cannot start .*no-such-codex: there is no such file/);
  expect(await missing.ended).toMatch(/cannot start .*no-such-codex/);
  await missing.stop();
});

it("the app-server's stderr tail keeps a character its writes split, and starts on a character", async () => {
  // 😀 is F0 9F 98 80: written in two halves, a moment apart, so the serve reads them as two chunks.
  const split = startWatched({ bin: '/bin/sh', args: ['-c', "printf 'Error: \\360\\237' >&2; sleep 0.3; printf '\\230\\200 gone\\n' >&2"] });
  expect(await split.ended).toBe('code 0');
  await split.stop();
  expect(split.stderrTail()).toBe('Error: 😀 gone\n');
  // 2 × 3,000 + 1 UTF-16 units: the last 4,096 would begin with the second half of an emoji.
  const long = startWatched({ bin: process.execPath, args: ['-e', "process.stderr.write('😀'.repeat(3000) + 'c')"] });
  expect(await long.ended).toBe('code 0');
  await long.stop();
  expect(long.stderrTail()).toBe(`${'😀'.repeat(2047)}c`);
});
