import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep, waitFor } from '../../../../../test/support/wait.js';
import { ProcTreeReader } from '../../../src/telemetry/sampler/linux/proc-tree.js';

const linux = process.platform === 'linux';
const MiB = 1024 * 1024;

/** A node root that runs shell commands on request (`run` message) and reports their pids. */
const ROOT = `
const { spawn } = require('node:child_process');
process.on('message', (m) => {
  const c = spawn('sh', ['-c', m.cmd], { stdio: 'ignore' });
  process.send({ pid: c.pid });
});
process.send({ ready: true });
setInterval(() => {}, 1e6);
`;

const started: ChildProcess[] = [];
const tempDirs: string[] = [];
afterEach(() => {
  for (const d of tempDirs.splice(0)) rmSync(d, { recursive: true, force: true });
  for (const c of started.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

async function root(): Promise<ChildProcess & { run(cmd: string): Promise<number> }> {
  const c = spawn(process.execPath, ['-e', ROOT], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], detached: true });
  started.push(c);
  await new Promise<void>((resolve) => c.once('message', () => resolve()));
  return Object.assign(c, {
    run: (cmd: string) =>
      new Promise<number>((resolve) => {
        c.once('message', (m: { pid: number }) => resolve(m.pid));
        c.send({ cmd });
      }),
  });
}

/** Reads until `ok` holds and returns that reading, or the last one after `ms` (the test's assertion then says what was wrong). */
async function until<T>(read: () => T, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = read();
    if (ok(v) || Date.now() > end) return v;
    await sleep(50);
  }
}

/** Writes a line into the FIFO `path` when a reader has it open (never blocks); whether it did. */
function release(path: string): boolean {
  try {
    const fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(fd, 'go\n');
    closeSync(fd);
    return true;
  } catch {
    return false;
  }
}

/** Waits until `pid` has left the process table (exited and reaped: not even a zombie). */
function reaped(pid: number, what: string): Promise<true> {
  return waitFor(() => !existsSync(`/proc/${pid}`), { what: `${what} (pid ${pid}) to exit and be reaped` });
}

/** Whether `pid` is a zombie (exited, not reaped). */
function zombie(pid: number): boolean {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return s.slice(s.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

function cpuTicks(pid: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

describe.runIf(linux)('ProcTreeReader', () => {
  it('refuses a pid that does not exist', () => {
    expect(() => new ProcTreeReader(2 ** 22 + 7)).toThrow(/no running process/);
  });

  it('counts processes of the tree, not threads, down to grandchildren', async () => {
    const r = await root();
    await r.run('sleep 30 & (sleep 30 & wait) & wait');
    const reader = new ProcTreeReader(r.pid!);
    // node root (several threads) + sh + sleep + subshell + sleep = 5 processes
    const reading = await until(() => reader.read(), (x) => x.nProcs === 5);
    expect(reading.nProcs).toBe(5);
    expect(reading.rootAlive).toBe(true);
    expect(reading.rssBytes).toBeGreaterThan(10 * MiB);
    reader.close();
  });

  for (const [name, fullScanMs] of [['by probing new pids', 1e9], ['by listing /proc', 0]] as const) {
    it(`finds a child started after the first reading (${name})`, async () => {
      const r = await root();
      const reader = new ProcTreeReader(r.pid!, { fullScanMs });
      expect(reader.read().nProcs).toBe(1);
      await r.run('exec sleep 30');
      const reading = await until(() => reader.read(), (x) => x.nProcs === 2);
      expect(reading.nProcs).toBe(2);
      reader.close();
    });
  }

  it('finds a child by probing while foreign processes are spawned fast, and counts none of them', async () => {
    // Foreign churn: its own session, 200 short-lived processes a second (most are gone when probed).
    const churn = spawn(process.execPath, ['-e', "const {spawn}=require('node:child_process');setInterval(()=>{for(let i=0;i<10;i++)spawn('/bin/true',[],{stdio:'ignore'})},50)"], { stdio: 'ignore', detached: true });
    started.push(churn);
    const r = await root();
    const reader = new ProcTreeReader(r.pid!, { fullScanMs: 1e9, maxProbes: 100_000 });
    // Windows in which foreign processes appear and must NOT be counted (longer under load: more churn).
    await sleep(300);
    for (let i = 0; i < 5; i++) {
      await sleep(100);
      expect(reader.read().nProcs).toBe(1);
    }
    await r.run('exec sleep 30');
    const reading = await until(() => reader.read(), (x) => x.nProcs === 2);
    expect(reading.nProcs).toBe(2);
    for (let i = 0; i < 5; i++) {
      await sleep(100);
      expect(reader.read().nProcs).toBe(2);
    }
    reader.close();
  });

  it('finds each new child at the very next reading with default options, under foreign churn', async () => {
    // Default options: pids are found by probing (kill(pid, 0) first), the full listing is 30 s away.
    const churn = spawn(process.execPath, ['-e', "const {spawn}=require('node:child_process');setInterval(()=>{for(let i=0;i<5;i++)spawn('/bin/true',[],{stdio:'ignore'})},50)"], { stdio: 'ignore', detached: true });
    started.push(churn);
    const r = await root();
    const reader = new ProcTreeReader(r.pid!);
    await sleep(300); // a window of foreign churn that must NOT be counted
    expect(reader.read().nProcs).toBe(1);
    for (let i = 1; i <= 8; i++) {
      await r.run('exec sleep 30'); // answers once spawn has returned: the child exists
      await sleep(30 + 20 * i); // more foreign pids between the spawn and the reading
      expect(reader.read().nProcs).toBe(1 + i);
    }
    reader.close();
  });

  it('keeps counting a child after its parent exits (sticky membership)', async () => {
    const r = await root();
    const dir = mkdtempSync(join(tmpdir(), 'cordon-sticky-'));
    tempDirs.push(dir);
    // sh waits for its second child, which the test ends once the reader has seen the tree, not
    // after a fixed second that a loaded machine could spend before the first reading.
    const sh = await r.run(`sleep 30 & sleep 300 & echo $! > ${dir}/last; wait $!`);
    const reader = new ProcTreeReader(r.pid!);
    expect((await until(() => reader.read(), (x) => x.nProcs === 4)).nProcs).toBe(4); // root, sh, sleep 30, sleep 300
    const last = await waitFor(() => Number(existsSync(join(dir, 'last')) && readFileSync(join(dir, 'last'), 'utf8').trim()) || undefined, { what: "sh's second child's pid" });
    process.kill(last, 'SIGTERM');
    // sh ends after the second child (which it reaps) and is reaped by the root; `sleep 30` is re-parented away from the tree.
    await reaped(sh, 'sh');
    expect(reader.read().nProcs).toBe(2);
    reader.close();
  });

  it('sums RSS: a child holding 200 MiB raises the tree by at least that much', async () => {
    const r = await root();
    const reader = new ProcTreeReader(r.pid!);
    const before = reader.read().rssBytes;
    await r.run(`exec ${JSON.stringify(process.execPath)} -e "const b = Buffer.alloc(200 * 2 ** 20, 1); setInterval(() => b.length, 1000)"`);
    const after = await until(() => reader.read(), (x) => x.rssBytes - before > 200 * MiB);
    expect(after.rssBytes - before).toBeGreaterThan(200 * MiB);
    reader.close();
  });

  it('reports CPU % as the tree’s utime + stime over wall time (100 = one core)', async () => {
    const r = await root();
    const child = await r.run(`exec ${JSON.stringify(process.execPath)} -e "for (;;) {}"`);
    const reader = new ProcTreeReader(r.pid!);
    reader.read();
    const t0 = performance.now();
    const c0 = cpuTicks(child) + cpuTicks(r.pid!);
    // The interval measured: until the busy child has had 0.5 s of CPU (on a loaded machine that
    // takes longer than 0.5 s of wall time, and the expected percentage is lower: both are measured).
    await waitFor(() => cpuTicks(child) - c0 >= 50 || undefined, { what: 'the busy child to use 0.5 s of CPU', timeoutMs: 60_000, intervalMs: 50 });
    const reading = reader.read();
    const c1 = cpuTicks(child) + cpuTicks(r.pid!);
    const expected = ((c1 - c0) / 100 / ((performance.now() - t0) / 1000)) * 100;
    expect(reading.cpuPct).toBeGreaterThan(0);
    expect(Math.abs(reading.cpuPct - expected)).toBeLessThan(12);
    reader.close();
  });

  it('marks a reading partial when a process exited and was reaped since the previous one', async () => {
    const r = await root();
    // Ended by the test once read (a sleep of its own could end before a loaded machine's first reading).
    const child = await r.run('exec sleep 30');
    const reader = new ProcTreeReader(r.pid!);
    expect((await until(() => reader.read(), (x) => x.nProcs === 2)).partial).toBe(false);
    process.kill(child, 'SIGTERM');
    await reaped(child, 'sleep 30');
    const reading = reader.read();
    expect(reading.nProcs).toBe(1);
    expect(reading.partial).toBe(true);
    expect(reader.read().partial).toBe(false);
    reader.close();
  });

  it('does not mark partial for a zombie child: its final counters stay readable', async () => {
    const r = await root();
    const parent = await r.run('sleep 0.3 & exec sleep 30'); // the exec'd sleep never reaps its child
    const reader = new ProcTreeReader(r.pid!);
    await until(() => reader.read(), (x) => x.nProcs === 3);
    const children = (): number[] => readFileSync(`/proc/${parent}/task/${parent}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number);
    await waitFor(() => children().some(zombie), { what: 'the background sleep 0.3 to become a zombie' });
    const reading = reader.read();
    expect(reading.nProcs).toBe(3);
    expect(reading.partial).toBe(false);
    reader.close();
  });

  it('says the root is gone once it is killed', async () => {
    const r = await root();
    const reader = new ProcTreeReader(r.pid!);
    expect(reader.read().rootAlive).toBe(true);
    r.kill('SIGKILL');
    const reading = await until(() => reader.read(), (x) => !x.rootAlive);
    expect(reading.rootAlive).toBe(false);
    reader.close();
  });

  it('keeps counting idle members between their reads: same processes and RSS as a reader that reads all each tick', async () => {
    const r = await root();
    await r.run('for i in 1 2 3 4 5; do sleep 30 & done; wait');
    const lazy = new ProcTreeReader(r.pid!, { idleMs: 400 });
    const eager = new ProcTreeReader(r.pid!, { idleMs: 0 });
    await until(() => lazy.read(), (x) => x.nProcs === 7); // root, sh, 5 sleeps
    // All but the root are idle after 400 ms; the window only makes the lazy reader skip some
    // reads (under load it skips more): the counts must agree whatever it skipped.
    await sleep(600);
    for (let i = 0; i < 8; i++) {
      const a = lazy.read();
      const b = eager.read();
      expect(a.nProcs).toBe(7);
      expect(b.nProcs).toBe(7);
      // The root's RSS moves a little between the two reads; the idle members' does not.
      expect(Math.abs(a.rssBytes - b.rssBytes)).toBeLessThan(4 * MiB);
      await sleep(60);
    }
    lazy.close();
    eager.close();
  });

  it('counts all the CPU an idle member gains once it wakes', async () => {
    const r = await root();
    // Idle for 1.2 s, then 400 ms of CPU time (not wall time: the machine may be busy), then idle.
    const burn = 'setTimeout(() => { const c = process.cpuUsage(); while (process.cpuUsage(c).user < 400000); }, 1200); setTimeout(() => {}, 60000)';
    const child = await r.run(`exec ${JSON.stringify(process.execPath)} -e "${burn}"`);
    await sleep(300); // past its start-up burst
    const reader = new ProcTreeReader(r.pid!, { idleMs: 500 });
    // The reader's own clock: the time just before each read() stands for the one it takes inside.
    let counted = 0;
    let last = performance.now();
    reader.read(); // the reading the sum starts from (the child is idle now)
    const c0 = cpuTicks(child) + cpuTicks(r.pid!);
    const read = () => {
      const now = performance.now();
      const reading = reader.read();
      counted += (reading.cpuPct / 100) * ((now - last) / 1000) * 100; // clock ticks at USER_HZ 100
      last = now;
    };
    const cap = Date.now() + 20_000;
    while (cpuTicks(child) - c0 < 40 && Date.now() < cap) {
      await sleep(50);
      read();
    }
    // Idle again: keep reading past idleMs so the idle re-read sees the last of the burst.
    for (let i = 0; i < 16; i++) {
      await sleep(100);
      read();
    }
    const used = cpuTicks(child) + cpuTicks(r.pid!) - c0;
    expect(used).toBeGreaterThanOrEqual(40); // the burst happened
    // Nothing lost or counted twice (rounding of each reading's elapsed time aside).
    expect(Math.abs(counted - used)).toBeLessThan(3);
    reader.close();
  }, 30_000);

  it('joins the new child of an idle parent (the parent is read first, found alive)', async () => {
    const r = await root();
    const hold = `const b = Buffer.alloc(100 * 2 ** 20, 1); setInterval(() => b.length, 1000)`;
    const dir = mkdtempSync(join(tmpdir(), 'cordon-idle-parent-'));
    tempDirs.push(dir);
    const go = join(dir, 'go');
    execFileSync('mkfifo', [go]);
    // The shell idles in \`read\` (a builtin: no child, no CPU) until the test releases it once the
    // reader has had it idle, then forks a 100 MiB node (\`; true\` keeps it from exec'ing). A fixed
    // \`sleep\` could end before a loaded machine's first reading.
    await r.run(`read line < ${go}; ${JSON.stringify(process.execPath)} -e "${hold}"; true`);
    // Idle after 800 ms and re-read every 800 ms: the fork falls between two reads of the shell.
    const reader = new ProcTreeReader(r.pid!, { idleMs: 800, fullScanMs: 1e9 });
    const before = await until(() => reader.read(), (x) => x.nProcs === 2);
    expect(before.nProcs).toBe(2); // root, sh
    // A second of the reader's own clock (longer under load): the shell is idle in its readings.
    for (const end = performance.now() + 1000; performance.now() < end; ) {
      await sleep(50);
      reader.read();
    }
    await waitFor(() => release(go), { what: 'the shell to open its FIFO' });
    const after = await until(() => reader.read(), (x) => x.rssBytes - before.rssBytes > 100 * MiB);
    expect(after.rssBytes - before.rssBytes).toBeGreaterThan(100 * MiB);
    expect((await until(() => reader.read(), (x) => x.nProcs === 3)).nProcs).toBe(3); // root, sh, node
    reader.close();
  });

  /** A Node script that holds `mib` MiB and, when `childMib` is given, starts a plain `node -e` child holding that much. */
  function holder(mib: number, childMib?: number): string {
    const hold = (n: number) => `const b = Buffer.alloc(${n} * 2 ** 20, 1); setInterval(() => b.length, 1000);`;
    const child = childMib === undefined ? '' : `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(hold(childMib))}], { stdio: 'ignore' });`;
    return `${child}\n${hold(mib)}\n`;
  }

  /** Reads until the tree holds more than `minBytes` and its RSS stopped growing (allocations done), 30 s at most. */
  async function settled(reader: ProcTreeReader, minBytes: number) {
    let previous = reader.read();
    const end = Date.now() + 30_000;
    for (;;) {
      await sleep(100);
      const next = reader.read();
      if ((next.rssBytes > minBytes && Math.abs(next.rssBytes - previous.rssBytes) < MiB) || Date.now() > end) return next;
      previous = next;
    }
  }

  /** Writes `script` at `<temp>/<rel>` and returns the absolute path. */
  function fakeScript(rel: string, script: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-own-'));
    tempDirs.push(dir);
    const path = join(dir, rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, script);
    return path;
  }

  it('leaves out a `cordon hook` process and its subtree, keeps the agent’s own memory hog', async () => {
    const r = await root();
    const node = JSON.stringify(process.execPath);
    // The agent's real work: 150 MiB.
    await r.run(`exec ${node} -e "const b = Buffer.alloc(150 * 2 ** 20, 1); setInterval(() => b.length, 1000)"`);
    // What install-hooks writes, run through `sh -c` as agents do: 200 MiB itself, 200 MiB in a child.
    const runJs = fakeScript('host/bin/run.cjs', holder(200, 200));
    await r.run(`${node} ${JSON.stringify(runJs)} hook --agent claude-code`);
    const everything = new ProcTreeReader(r.pid!, { ownProcesses: false });
    const all = await settled(everything, 550 * MiB);
    expect(all.rssBytes).toBeGreaterThan(550 * MiB);
    // Opened once the tree is complete, so every process is met after its exec (no fork-exec race).
    const reader = new ProcTreeReader(r.pid!);
    const agentOnly = reader.read();
    expect(agentOnly.rssBytes).toBeGreaterThan(150 * MiB); // the hog counts
    expect(all.rssBytes - agentOnly.rssBytes).toBeGreaterThan(400 * MiB); // hook + its child do not
    expect(agentOnly.nProcs).toBe(2); // root + hog
    expect(all.nProcs).toBeGreaterThanOrEqual(4); // + hook (+ its sh wrapper) + the hook's child
    everything.close();
    reader.close();
  });

  it('leaves out the wrap shell shim itself but counts the command it runs', async () => {
    const r = await root();
    const shim = fakeScript('aider/dist/shim/shell.js', holder(200, 150));
    await r.run(`exec ${JSON.stringify(process.execPath)} ${JSON.stringify(shim)} -c true`);
    const everything = new ProcTreeReader(r.pid!, { ownProcesses: false });
    const all = await settled(everything, 350 * MiB);
    const reader = new ProcTreeReader(r.pid!);
    const agentOnly = reader.read();
    expect(agentOnly.rssBytes).toBeGreaterThan(150 * MiB); // the shim's child counts
    expect(all.rssBytes).toBeGreaterThan(350 * MiB);
    expect(all.rssBytes - agentOnly.rssBytes).toBeGreaterThan(200 * MiB); // the shim does not
    expect(agentOnly.nProcs).toBe(2); // root + the shim's child
    everything.close();
    reader.close();
  });
});

describe.runIf(linux)('orphaned background jobs', () => {
  it('counts a job whose shell exited before the first tick (adopted through its process group), not a sibling job of the same script', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-orphan-'));
    tempDirs.push(dir);
    // L (own session and group) starts the root R = `sh -c "sh -c 'job &'; sleep"` (the issue's
    // shape), then a sibling job of its own in the same group and session, which is not R's.
    const alloc = (mb: number) => `const b=Buffer.alloc(${mb}*1024*1024,1);setTimeout(()=>{},60000)`;
    const script = [
      `sh -c 'sh -c "exec node -e \\"$ORPHAN\\" &"; sleep 60' & echo $! > ${dir}/root`,
      'sleep 0.3',
      `node -e "$SIBLING" & echo $! > ${dir}/sibling`,
      'wait',
    ].join('\n');
    const l = spawn('sh', ['-c', script], { stdio: 'ignore', detached: true, env: { ...process.env, ORPHAN: alloc(120), SIBLING: alloc(60) } });
    started.push(l);
    const rootPid = Number(await until(() => (existsSync(join(dir, 'root')) ? readFileSync(join(dir, 'root'), 'utf8') : ''), (v) => v.trim() !== ''));
    await until(() => (existsSync(join(dir, 'sibling')) ? readFileSync(join(dir, 'sibling'), 'utf8') : ''), (v) => v.trim() !== '');
    // Wait until the job is orphaned and has its memory: a node whose parent is not the root's tree.
    const orphan = await until(
      () => findProcess((argv, stat) => argv.includes(alloc(120)) && stat.rssMiB >= 120),
      (v) => v !== undefined,
      20_000,
    );
    expect(orphan).toBeDefined();
    expect(orphan!.ppid).not.toBe(rootPid);
    const reader = new ProcTreeReader(rootPid);
    try {
      const reading = reader.read();
      const mem = reading.rssBytes / MiB;
      expect(mem).toBeGreaterThanOrEqual(120);
      expect(mem).toBeLessThan(120 + 55); // the 60 MiB sibling is not counted
      expect(reading.adopted).toBe(1);
    } finally {
      reader.close();
    }
  }, 60_000);
});

/** The first process (by /proc listing) whose argv and stat satisfy `match`. */
function findProcess(match: (argv: string[], stat: { rssMiB: number }) => boolean): { pid: number; ppid: number } | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const s = readFileSync(`/proc/${name}/stat`, 'latin1');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      const rssMiB = (Number(f[21]) * 4096) / MiB;
      if (match(argv, { rssMiB })) return { pid: Number(name), ppid: Number(f[1]) };
    } catch {
      // gone
    }
  }
  return undefined;
}

describe('adoption never takes the root’s own ancestors', () => {
  /** A procfs stand-in with the fields adoption reads: ppid, pgrp, session, start time (proc(5) fields 4, 5, 6, 22). */
  function fakeProc(entries: Array<{ pid: number; ppid: number; pgrp: number; session: number; start: number; rssPages: number }>): string {
    const root = mkdtempSync(join(tmpdir(), 'cordon-fake-proc-'));
    tempDirs.push(root);
    for (const e of entries) {
      mkdirSync(join(root, String(e.pid)), { recursive: true });
      const fields = Array.from({ length: 52 }, () => '0');
      [fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], fields[21], fields[23]] = [String(e.pid), '(p)', 'S', String(e.ppid), String(e.pgrp), String(e.session), String(e.start), String(e.rssPages)];
      writeFileSync(join(root, String(e.pid), 'stat'), fields.join(' ') + '\n');
      writeFileSync(join(root, String(e.pid), 'cmdline'), 'p\0');
    }
    return root;
  }

  it('a launcher that started the root in the same clock tick is not adopted, nor the job it started itself', () => {
    // L (session and group 50, its parent in another session) starts the root R in the same tick,
    // then a job of its own; R's orphaned job (parent pid 1) is adopted through the group.
    const proc = fakeProc([
      { pid: 10, ppid: 1, pgrp: 10, session: 10, start: 500, rssPages: 100 },
      { pid: 50, ppid: 10, pgrp: 50, session: 50, start: 1000, rssPages: 100 }, // L
      { pid: 100, ppid: 50, pgrp: 50, session: 50, start: 1000, rssPages: 1000 }, // R, the root
      { pid: 101, ppid: 1, pgrp: 50, session: 50, start: 1001, rssPages: 3000 }, // R's orphaned job
      { pid: 102, ppid: 50, pgrp: 50, session: 50, start: 1002, rssPages: 5000 }, // L's own job
    ]);
    const reader = new ProcTreeReader(100, { procRoot: proc, units: { pageSize: 4096, clockTicks: 100 }, fullScanMs: 0, exclude: [] });
    try {
      expect(reader.read()).toMatchObject({ nProcs: 2, adopted: 1, rssBytes: 4000 * 4096 });
    } finally {
      reader.close();
    }
  });
});
