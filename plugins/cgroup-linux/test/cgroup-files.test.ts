import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyMounts, findPlacement, parseCgroupMounts, parseOwnCgroup } from '../src/cgroup/detect.js';
import { parseKeyed, parseLimit, parsePressure } from '../src/cgroup/files.js';
import { sustainedStall, tierBytes } from '../src/enforce.js';
import { fileContains, kernelVersion, meminfo } from '../src/probes.js';

const REPO = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

// The parsers behind `cordon control probe` and the cgroup backend, on the kernel's own text
// (this machine's mountinfo, and the formats of cgroup-v2.rst / psi.rst / proc(5)).

const HYBRID = [
  '30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd',
  '40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');
const UNIFIED = '29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot';
const LEGACY = HYBRID.split('\n').slice(0, 4).join('\n');
const SYSTEMD_ONLY_V1 = `${UNIFIED}\n39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd`;

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('cgroup mounts', () => {
  it('tells pure v2, hybrid, v1 only and none apart', () => {
    expect(classifyMounts(parseCgroupMounts(UNIFIED)).kind).toBe('v2');
    expect(classifyMounts(parseCgroupMounts(SYSTEMD_ONLY_V1)).kind).toBe('v2');
    const hybrid = classifyMounts(parseCgroupMounts(HYBRID));
    expect(hybrid).toMatchObject({ kind: 'hybrid', v2: { mountPoint: '/sys/fs/cgroup/unified' }, v1Controllers: ['cpu', 'memory'] });
    expect(classifyMounts(parseCgroupMounts(LEGACY)).kind).toBe('v1');
    expect(classifyMounts(parseCgroupMounts('22 1 0:21 / /proc rw - proc proc rw')).kind).toBe('none');
  });

  it('undoes octal escapes in mount points', () => {
    expect(parseCgroupMounts('29 23 0:26 / /mnt/cg\\040two rw - cgroup2 cgroup2 rw')[0]!.mountPoint).toBe('/mnt/cg two');
  });

  it('reads the v2 line of /proc/self/cgroup', () => {
    expect(parseOwnCgroup('9:name=systemd:/\n4:memory:/x\n0::/user.slice/user-1000.slice/session-2.scope\n')).toBe('/user.slice/user-1000.slice/session-2.scope');
    expect(parseOwnCgroup('4:memory:/x\n')).toBeUndefined();
  });

  it('explains a hybrid host with the controllers on v1 (this kind of machine)', () => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-cg-'));
    writeFileSync(join(dir, 'mountinfo'), HYBRID.replace('/sys/fs/cgroup/unified', join(dir, 'unified')));
    writeFileSync(join(dir, 'cgroup'), '0::/\n');
    const where = findPlacement({ mountinfo: join(dir, 'mountinfo'), selfCgroup: join(dir, 'cgroup') }, 0);
    expect(where.reason).toMatch(/^hybrid cgroup v1\/v2: memory and cpu are bound to cgroup v1/);
    expect(where.fix).toMatch(/systemd\.unified_cgroup_hierarchy=1/);
  });

  it('asks a normal user for a delegated subtree when the own cgroup is not theirs', () => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-cg-'));
    writeFileSync(join(dir, 'mountinfo'), `29 23 0:26 / ${dir} rw - cgroup2 cgroup2 rw`);
    writeFileSync(join(dir, 'cgroup'), '0::/user.slice/session-1.scope\n');
    const where = findPlacement({ mountinfo: join(dir, 'mountinfo'), selfCgroup: join(dir, 'cgroup') }, 4242);
    expect(where.anchor).toBeUndefined();
    expect(where.reason).toMatch(/not delegated to this user \(uid 4242\)/);
    expect(where.fix).toContain('systemd-run --user --scope -p Delegate=yes');
  });
});

describe('cgroup files', () => {
  it('parses PSI totals in µs (psi.rst), with and without a full line', () => {
    const text = 'some avg10=46.12 avg60=20.00 avg300=5.00 total=8123456\nfull avg10=40.00 avg60=18.00 avg300=4.00 total=7654321\n';
    expect(parsePressure(text)).toEqual({ someUs: 8123456, fullUs: 7654321 });
    expect(parsePressure('some avg10=0.00 avg60=0.00 avg300=0.00 total=12\n')).toEqual({ someUs: 12, fullUs: 0 });
    expect(parsePressure(undefined)).toBeNull();
    expect(parsePressure('')).toBeNull();
  });

  it('parses flat-keyed files and limits', () => {
    expect(parseKeyed('low 0\nhigh 87\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n')).toEqual({ low: 0, high: 87, max: 0, oom: 0, oom_kill: 0, oom_group_kill: 0 });
    expect(parseKeyed('usage_usec 1200\nnr_throttled 66\nbad line here\n')).toEqual({ usage_usec: 1200, nr_throttled: 66 });
    expect(parseLimit('max\n')).toBeNull();
    expect(parseLimit('52428800\n')).toBe(52428800);
  });

  it('reads meminfo in bytes and the kernel version', () => {
    expect(meminfo('MemTotal:        1004352 kB\nSwapTotal:             0 kB\n')).toEqual({ MemTotal: 1004352 * 1024, SwapTotal: 0 });
    expect(kernelVersion('6.1.0-57-amd64')).toEqual([6, 1]);
    expect(kernelVersion('6.18.44-fc-v782')).toEqual([6, 18]);
    expect(kernelVersion('junk')).toBeUndefined();
  });

  it('finds a name in a file across its 1 MiB read boundary', () => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-btf-'));
    const file = join(dir, 'vmlinux');
    const data = Buffer.alloc((1 << 20) + 100, 0x41);
    data.write('memcg_bpf_ops', (1 << 20) - 5, 'latin1');
    writeFileSync(file, data);
    expect(fileContains(file, 'memcg_bpf_ops')).toBe(true);
    expect(fileContains(file, 'sched_ext_ops')).toBe(false);
  });
});

describe('tiers and the stall policy', () => {
  it('computes memory.high from the RAM base and leaves max unlimited', () => {
    expect(tierBytes({ name: 'low', ramFraction: 0.025, cpuWeight: 25 }, 16 * 2 ** 30)).toBe(429496729);
    expect(tierBytes({ name: 'max', ramFraction: null, cpuWeight: 1000 }, 16 * 2 ** 30)).toBeNull();
  });

  it('sees a sustained full stall only over a whole window', () => {
    const at = (ms: number, fullMs: number) => [ms, fullMs * 1000] as const;
    expect(sustainedStall([at(0, 0), at(2500, 2400)], 5000, 0.8)).toBe(false); // window not yet covered
    expect(sustainedStall([at(0, 0), at(2500, 2400), at(5000, 4900)], 5000, 0.8)).toBe(true);
    expect(sustainedStall([at(0, 0), at(5000, 3000)], 5000, 0.8)).toBe(false); // 60 % stalled
    expect(sustainedStall([], 5000, 0.8)).toBe(false);
  });

  it('never reports a stall that grew less than the fraction of the elapsed time', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 20_000 }), fc.integer({ min: 0, max: 30_000 }), fc.double({ min: 0.05, max: 1, noNaN: true }), (windowMs, extra, fraction) => {
        const elapsed = windowMs + extra;
        const stalledUs = Math.floor(fraction * elapsed * 1000) - 1;
        expect(sustainedStall([[0, 0], [elapsed, stalledUs]], windowMs, fraction)).toBe(false);
        expect(sustainedStall([[0, 0], [elapsed, stalledUs + 2]], windowMs, fraction)).toBe(true);
      }),
    );
  });
});

describe('@cordon/cgroup-linux sources', () => {
  // Run-time imports of the plugin API are fine: the build gives the plugin its own copy
  // (scripts/inline-plugin-api.mjs; packages/host/test/plugins/runtime-imports.test.ts).
  it('import no host module (an installed plugin cannot resolve the host)', () => {
    const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
    for (const file of walk(join(import.meta.dirname, '../src'))) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/from '(@cordon\/host|[./]*packages\/host)/);
    }
  });
});

describe('an unreadable cgroup.controllers', () => {
  // Root reads any file, so the probe runs as nobody (setpriv) against a copy of the mount whose
  // cgroup.controllers is mode 000: a real EACCES from the kernel.
  const nobody = (script: string) =>
    execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
  const canSwitch = process.geteuid?.() === 0 && existsSync('/usr/bin/setpriv');

  it.skipIf(!canSwitch)('names EACCES and gives no reboot advice, in the placement and in both probes', () => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-cg-eacces-'));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'mountinfo'), `29 23 0:26 / ${dir} rw - cgroup2 cgroup2 rw\n`, { mode: 0o644 });
    writeFileSync(join(dir, 'cgroup'), '0::/\n', { mode: 0o644 });
    writeFileSync(join(dir, 'cgroup.controllers'), 'cpu memory\n', { mode: 0o000 });
    chmodSync(join(dir, 'cgroup.controllers'), 0o000);
    const detect = pathToFileURL(join(REPO, 'plugins/cgroup-linux/dist/cgroup/detect.js')).href;
    const probes = pathToFileURL(join(REPO, 'plugins/cgroup-linux/dist/probes.js')).href;
    const out = nobody(
      `const { findPlacement } = await import(${JSON.stringify(detect)}); const { mountProbe, controllersProbe } = await import(${JSON.stringify(probes)});` +
        `const where = findPlacement({ mountinfo: ${JSON.stringify(join(dir, 'mountinfo'))}, selfCgroup: ${JSON.stringify(join(dir, 'cgroup'))} }, 0);` +
        `console.log(JSON.stringify({ where: { reason: where.reason, fix: where.fix }, mount: mountProbe(where), controllers: controllersProbe(where) }));`,
    );
    const r = JSON.parse(out) as { where: { reason: string; fix: string }; mount: { ok: boolean; detail: string; fix: string }; controllers: { ok: boolean; detail: string; fix: string } };
    expect(r.where.reason).toContain(`cannot read ${join(dir, 'cgroup.controllers')}: EACCES`);
    for (const text of [r.where.reason, r.where.fix, r.mount.detail, r.mount.fix, r.controllers.detail, r.controllers.fix]) {
      expect(text).not.toMatch(/boot|reboot|no controllers/);
    }
    expect(r.mount).toMatchObject({ ok: false });
    expect(r.mount.detail).toContain('EACCES');
    expect(r.controllers).toMatchObject({ ok: false });
    expect(r.controllers.detail).toContain('EACCES');
  });
});
