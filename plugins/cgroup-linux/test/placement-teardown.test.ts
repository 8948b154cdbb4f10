import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findPlacement } from '../src/cgroup/detect.js';
import { cleanupLeftovers, effectiveLimit, processStart, removeSubtree, subtreeDeepestFirst } from '../src/cgroup/domain.js';
import { processArgv } from '../src/enforce.js';
import { ThrottleMeter, type ThrottleSample } from '../src/throttle.js';

// Where a call's cgroup goes and how it is removed, on directory trees shaped like
// cgroupfs (the VM suite, test/vm, runs the same on a real kernel), and the throttle meter that
// replaces PSI where it cannot be read.

const MiB = 2 ** 20;
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A fake cgroup2 mount at `<tmp>/cg`: the root has cgroup.procs but no cgroup.type; every listed cgroup has both. */
function tree(cgroups: Record<string, Record<string, string>>, own: string): { mountinfo: string; selfCgroup: string; mount: string } {
  dir = mkdtempSync(join(tmpdir(), 'cordon-place-'));
  const mount = join(dir, 'cg');
  mkdirSync(mount);
  writeFileSync(join(mount, 'cgroup.procs'), '');
  writeFileSync(join(mount, 'cgroup.controllers'), 'cpu memory pids');
  for (const [path, files] of Object.entries(cgroups)) {
    mkdirSync(join(mount, path), { recursive: true });
    for (const [f, v] of Object.entries({ 'cgroup.type': 'domain\n', 'cgroup.procs': '', 'cgroup.controllers': 'cpu memory', ...files })) writeFileSync(join(mount, path, f), v);
  }
  writeFileSync(join(dir, 'mountinfo'), `29 23 0:26 / ${mount} rw - cgroup2 cgroup2 rw\n`);
  writeFileSync(join(dir, 'cgroup'), `0::${own}\n`);
  return { mountinfo: join(dir, 'mountinfo'), selfCgroup: join(dir, 'cgroup'), mount };
}

describe('placement', () => {
  it('as root, puts calls under the own (agent) cgroup, not the mount root', () => {
    const t = tree({ 'system.slice': {}, 'system.slice/agent.service': { 'memory.max': `${150 * MiB}\n` } }, '/system.slice/agent.service');
    const where = findPlacement(t, 0);
    expect(where.reason).toBeUndefined();
    expect(where).toMatchObject({ anchor: join(t.mount, 'system.slice/agent.service'), anchorKind: 'agent-cgroup' });
  });

  it('uses the parent of the cordon-leaf an earlier run moved the agent into', () => {
    const t = tree({ agent: {}, 'agent/cordon-leaf': {} }, '/agent/cordon-leaf');
    expect(findPlacement(t, 0)).toMatchObject({ anchor: join(t.mount, 'agent'), anchorKind: 'agent-cgroup' });
  });

  it('tells the true root cgroup (no cgroup.type) from a namespace or bind-mount root', () => {
    const t = tree({}, '/');
    expect(findPlacement(t, 0)).toMatchObject({ anchor: t.mount, anchorKind: 'root-cgroup' });
    writeFileSync(join(t.mount, 'cgroup.type'), 'domain\n'); // a cgroup namespace's root is a non-root cgroup
    expect(findPlacement(t, 0)).toMatchObject({ anchor: t.mount, anchorKind: 'agent-cgroup' });
  });

  it('refuses when the own cgroup is not visible under the mount (mountinfo root /..)', () => {
    const t = tree({}, '/');
    writeFileSync(t.mountinfo, `31 30 0:24 /.. ${t.mount} rw - cgroup2 cgroup2 rw\n`);
    const where = findPlacement(t, 0);
    expect(where.anchor).toBeUndefined();
    expect(where.reason).toMatch(/is not visible under the cgroup2 mount/);
  });
});

describe('the RAM base sees every readable ancestor limit', () => {
  it('counts the mount point itself (a container cgroup namespace root with memory.max=200M)', () => {
    const t = tree({ agent: {}, 'agent/cordon': {} }, '/agent');
    writeFileSync(join(t.mount, 'memory.max'), `${200 * MiB}\n`);
    expect(effectiveLimit(join(t.mount, 'agent/cordon'), t.mount)).toBe(200 * MiB);
    writeFileSync(join(t.mount, 'agent', 'memory.high'), `${150 * MiB}\n`);
    expect(effectiveLimit(join(t.mount, 'agent/cordon'), t.mount)).toBe(150 * MiB);
    writeFileSync(join(t.mount, 'agent/cordon', 'memory.max'), 'max\n');
    expect(effectiveLimit(join(t.mount, 'agent/cordon'), t.mount)).toBe(150 * MiB);
  });

  it('is null with no limit anywhere, and never reads above the mount', () => {
    const t = tree({ agent: {} }, '/agent');
    writeFileSync(join(dir!, 'memory.max'), `${10 * MiB}\n`); // beside the mount, outside it
    expect(effectiveLimit(join(t.mount, 'agent'), t.mount)).toBeNull();
  });
});

describe('removing a call cgroup with sub-cgroups of its own', () => {
  it('lists the subtree deepest first and removes it whole', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-rm-'));
    const call = join(dir, 'run-1-2-abc');
    for (const d of ['inner/deeper/deepest', 'inner/side', 'other']) mkdirSync(join(call, d), { recursive: true });
    const order = subtreeDeepestFirst(call).map((d) => d.slice(call.length + 1));
    for (const d of order) for (const child of order.filter((o) => o.startsWith(`${d}/`))) expect(order.indexOf(child)).toBeLessThan(order.indexOf(d));
    expect(order.sort()).toEqual(['inner', 'inner/deeper', 'inner/deeper/deepest', 'inner/side', 'other']);
    expect(await removeSubtree(call)).toBe(true);
    expect(existsSync(call)).toBe(false);
  });

  it('leaves a leftover alone while anything in it runs, and never touches a live owner\'s (the VM removes an empty one with sub-cgroups)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-left-'));
    const busy = join(dir, 'run-999998-1-busy00');
    mkdirSync(join(busy, 'inner'), { recursive: true });
    writeFileSync(join(busy, 'cgroup.events'), 'populated 1\nfrozen 0\n');
    const live = join(dir, `run-${process.pid}-${processStart(process.pid)}-live00`);
    mkdirSync(join(live, 'inner'), { recursive: true });
    const { removed, kept } = await cleanupLeftovers(dir);
    expect(removed).toEqual([]);
    expect(kept).toEqual([busy]);
    expect(existsSync(join(busy, 'inner'))).toBe(true);
    expect(existsSync(join(live, 'inner'))).toBe(true);
  });

  it('takes a cgroup for a leftover only when its name spells pid and start as cordon writes them (no 0, no leading zeros)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-left-'));
    const names = ['run-0-1-zero00', `run-0${process.pid}-${processStart(process.pid)}-zero01`, 'run-999998-01-zero02'];
    for (const name of names) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'cgroup.events'), 'populated 0\nfrozen 0\n');
    }
    const { removed, kept } = await cleanupLeftovers(dir);
    expect(removed).toEqual([]);
    expect(kept).toEqual([]);
    for (const name of names) expect(existsSync(join(dir, name))).toBe(true);
  });
});

describe('naming an ended process', () => {
  it('reads its arguments raw and whole (the host redacts, escapes and cuts them), and says ? for a pid that is gone', async () => {
    const long = 'y'.repeat(70 * 1024);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)', 'dev\u001b[31mserver\u0007', '--token', 'ghp_secret', long], { stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    try {
      const argv = processArgv(child.pid!);
      expect(argv.slice(0, 5)).toEqual([process.execPath, '-e', 'setTimeout(() => {}, 20000)', 'dev\u001b[31mserver\u0007', '--token']);
      expect(argv[5]).toBe('ghp_secret');
      // Bounded: the 70 KiB argument is kept cut at 64 KiB of arguments in all.
      expect(argv.join(' ').length).toBeLessThanOrEqual(64 * 1024);
      expect(argv[6]).toMatch(/^y+$/);
    } finally {
      child.kill('SIGKILL');
    }
    expect(processArgv(2 ** 22 + 1)).toEqual(['?']);
  });
});

describe('throttle meter', () => {
  const s = (atMs: number, over: Partial<ThrottleSample> = {}): ThrottleSample => ({ atMs, fullUs: null, highEvents: 0, currentBytes: 10 * MiB, highBytes: 24 * MiB, ...over });

  it('without PSI sees a call held far over memory.high while memory.events high grows (the VM trace: +17 per 2 s penalty)', () => {
    const m = new ThrottleMeter();
    // memory.current 100 MiB against memory.high 24 MiB; high grows by 17 every ~2.1 s, as in the VM.
    for (let t = 0; t <= 6000; t += 100) m.add(s(t, { currentBytes: 100 * MiB, highEvents: 17 * (1 + Math.floor(t / 2100)) }));
    expect(m.source).toBe('memory.events');
    expect(m.throttledMs).toBe(6000);
    expect(m.sustained(1500, 0.8)).toBe(true);
  });

  it('does not count a call under its limit, or over it with memory.events high standing still (nothing throttles it)', () => {
    const under = new ThrottleMeter();
    for (let t = 0; t <= 6000; t += 100) under.add(s(t, { currentBytes: 20 * MiB, highEvents: t }));
    expect(under.throttledMs).toBe(0);
    expect(under.sustained(1500, 0.8)).toBe(false);
    const still = new ThrottleMeter();
    still.add(s(0, { currentBytes: 100 * MiB, highEvents: 5 }));
    for (let t = 100; t <= 8000; t += 100) still.add(s(t, { currentBytes: 100 * MiB, highEvents: 5 }));
    expect(still.throttledMs).toBe(3000); // the recency window after the last growth, then nothing
    expect(still.sustained(1500, 0.8)).toBe(false);
  });

  it('uses PSI while it reads and switches to memory.events for the rest of the call when it stops', () => {
    const m = new ThrottleMeter();
    for (let t = 0; t <= 2000; t += 100) m.add(s(t, { fullUs: t * 900, currentBytes: 20 * MiB }));
    expect(m.source).toBe('memory.pressure');
    expect(m.sustained(1500, 0.8)).toBe(true);
    m.add(s(2100, { fullUs: null, currentBytes: 20 * MiB }));
    expect(m.source).toBe('memory.events');
    expect(m.sustained(1500, 0.8)).toBe(false); // the window starts again on the new measure
  });

  it('starts the window again after a raise, and skips frozen time', () => {
    const m = new ThrottleMeter();
    for (let t = 0; t <= 2000; t += 100) m.add(s(t, { currentBytes: 100 * MiB, highEvents: 1 + t }));
    expect(m.sustained(1500, 0.8)).toBe(true);
    m.restart();
    expect(m.sustained(1500, 0.8)).toBe(false);
    m.skip(10_000);
    m.add(s(10_100, { currentBytes: 100 * MiB, highEvents: 99_999 }));
    expect(m.throttledMs).toBe(2100);
  });
});
