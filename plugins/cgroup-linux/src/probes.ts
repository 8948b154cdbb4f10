import { closeSync, existsSync, openSync, readSync, rmdirSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ProbeContext, ProbeEntry, ProbeResult } from '@cordon/plugin-api';
import { DELEGATE_FIX, HYBRID_FIX, hybridReason, NEEDED, unreadableControllers, type Placement } from './cgroup/detect.js';
import { CONTAINER, effectiveLimit } from './cgroup/domain.js';
import { readError, readText, words } from './cgroup/files.js';
import { BACKEND, mib, placement, tierBytes } from './enforce.js';

/** The kernel release (`os.release()`); node:os loads on first use, since `control run` loads this plugin and never asks (`npm run bench:control`). */
const release = (): string => (process.getBuiltinModule('node:os') as typeof import('node:os')).release();

/** `[major, minor]` of a kernel release string (`6.1.0-57-amd64` → `[6, 1]`), or `undefined`. */
export function kernelVersion(text: string = release()): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

function atLeast(v: [number, number] | undefined, major: number, minor: number): boolean {
  return v !== undefined && (v[0] > major || (v[0] === major && v[1] >= minor));
}

/**
 * True when the file holds `needle` (streamed in 1 MiB chunks; the kernel's BTF is 5–10 MB). A
 * BTF string table holds every type name, so this finds `memcg_bpf_ops` when the RFC patches are
 * in the kernel (the memcg_bpf_ops RFC series on the bpf list). Throws what opening the file throws.
 */
export function fileContains(path: string, needle: string): boolean {
  const want = Buffer.from(needle);
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(1 << 20);
    let carry = Buffer.alloc(0);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return false;
      const hay = Buffer.concat([carry, chunk.subarray(0, n)]);
      if (hay.includes(want)) return true;
      carry = hay.subarray(Math.max(0, hay.length - want.length + 1));
    }
  } finally {
    closeSync(fd);
  }
}

const MOUNT_WORDS = { v2: 'pure cgroup v2', hybrid: 'hybrid cgroup v1/v2', v1: 'cgroup v1 only', none: 'no cgroup mount' } as const;

/** The mount probe: kind, where, and whether its root offers memory and cpu. */
export function mountProbe(where: Placement): ProbeResult {
  const { kind, v2, v1Controllers } = where.mounts;
  const data = { kind, v2_mount: v2?.mountPoint ?? null, v1_controllers: v1Controllers };
  if (!v2) return { ok: false, detail: `${MOUNT_WORDS[kind]}: cordon enforces through cgroup v2`, fix: 'boot with systemd.unified_cgroup_hierarchy=1', data };
  const unreadable = unreadableControllers(v2.mountPoint);
  if (unreadable) return { ok: false, detail: `${MOUNT_WORDS[kind]} at ${v2.mountPoint}, but ${unreadable.reason}`, fix: unreadable.fix, data: { ...data, error: unreadable.code } };
  const rootControllers = words(readText(join(v2.mountPoint, 'cgroup.controllers')));
  const onV1 = NEEDED.filter((c) => !rootControllers.includes(c) && v1Controllers.includes(c));
  if (kind === 'hybrid' && onV1.length) return { ok: false, detail: hybridReason(v2.mountPoint, onV1, rootControllers), fix: HYBRID_FIX, data };
  return { ok: true, detail: `${MOUNT_WORDS[kind]} at ${v2.mountPoint}${kind === 'hybrid' ? ` (v1 holds ${v1Controllers.join(', ')})` : ''}`, data };
}

/** The controllers probe: what the anchor (cordon's subtree) offers. */
export function controllersProbe(where: Placement): ProbeResult {
  const have = where.controllers;
  const missing = NEEDED.filter((c) => !have.includes(c));
  const at = where.anchor ?? where.mounts.v2?.mountPoint ?? '(no cgroup v2)';
  const data = { at, available: have, needed: [...NEEDED], pids: have.includes('pids') };
  const unreadable = where.anchor || where.mounts.v2 ? unreadableControllers(at) : undefined;
  if (unreadable) return { ok: false, detail: unreadable.reason, fix: unreadable.fix, data: { ...data, error: unreadable.code } };
  if (missing.length) return { ok: false, detail: `${at} offers ${have.join(' ') || 'no controllers'}; missing ${missing.join(', ')}`, fix: where.fix ?? DELEGATE_FIX, data };
  return { ok: true, detail: `${at} offers ${have.join(' ')}${have.includes('pids') ? '' : ' (no pids)'}`, data };
}

/** The delegation probe: can cordon create and remove a child cgroup where it would? */
export function delegationProbe(where: Placement): ProbeResult {
  if (!where.anchor) {
    return { ok: false, detail: where.reason ?? 'no cgroup v2 subtree cordon may write', fix: DELEGATE_FIX, data: { anchor: null, own: where.ownDir ?? null } };
  }
  const probe = join(where.anchor, `cordon-probe-${process.pid}`);
  const data = { anchor: where.anchor, container: join(where.anchor, CONTAINER), own: where.ownDir ?? null, uid: process.geteuid?.() ?? null };
  try {
    mkdirSync(probe);
  } catch (error) {
    return { ok: false, detail: `cannot create a cgroup in ${where.anchor}: ${(error as NodeJS.ErrnoException).code}`, fix: DELEGATE_FIX, data };
  }
  try {
    rmdirSync(probe);
  } catch (error) {
    return { ok: false, detail: `created but cannot remove ${probe}: ${(error as NodeJS.ErrnoException).code}`, fix: DELEGATE_FIX, data };
  }
  const who = process.geteuid?.() === 0 ? 'as root' : 'in a subtree delegated to this user';
  return { ok: true, detail: `creates and removes cgroups ${who} under ${where.anchor} (per-call cgroups go to ${data.container})`, data };
}

/** The PSI probe (kernel docs, accounting/psi.rst): system files, and the per-cgroup file where cordon works. */
export function psiProbe(where: Placement): ProbeResult {
  const system = ['memory', 'cpu', 'io'].map((r) => [r, readError(`/proc/pressure/${r}`)] as const);
  const bad = system.filter(([, e]) => e);
  const cg = where.ownDir && where.ownDir !== where.mounts.v2?.mountPoint ? where.ownDir : where.anchor;
  const cgFile = cg ? join(cg, 'memory.pressure') : undefined;
  const cgOk = cgFile ? existsSync(cgFile) && readError(cgFile) === undefined : false;
  const data = { system: Object.fromEntries(system.map(([r, e]) => [r, e ?? 'ok'])), cgroup_file: cgFile ?? null, cgroup_readable: cgOk };
  if (bad.length === system.length) {
    const off = bad.some(([, e]) => e === 'EOPNOTSUPP');
    return {
      ok: false,
      detail: off ? 'PSI is compiled in but disabled: stall time will read as zero' : 'no /proc/pressure: the kernel has no PSI; stall time will read as zero',
      fix: off ? 'boot with psi=1' : 'a kernel with CONFIG_PSI=y',
      data,
    };
  }
  return { ok: true, detail: `/proc/pressure/{memory,cpu,io} readable${cgFile ? `; ${cgFile} ${cgOk ? 'readable' : 'absent'}` : ''}`, data };
}

/** The memory.peak probe: Linux ≥ 5.19, or the file seen on a non-root cgroup. */
export function peakProbe(where: Placement): ProbeResult {
  const v = kernelVersion();
  // The file exists only where the memory controller is enabled, so the kernel version decides.
  const seen = where.ownDir && where.ownDir !== where.mounts.v2?.mountPoint ? existsSync(join(where.ownDir, 'memory.peak')) : undefined;
  const ok = seen === true || atLeast(v, 5, 19);
  return {
    ok,
    detail: ok ? `memory.peak available (Linux ${release()})` : `no memory.peak (Linux ${release()}; added in 5.19): the peak is the highest memory.current sampled every 250 ms`,
    data: { kernel: release(), seen_in_own_cgroup: seen ?? null },
  };
}

/** The sched_ext probe (kernel docs, scheduler/sched-ext.rst). */
export function schedExtProbe(): ProbeResult {
  const v = kernelVersion();
  if (existsSync('/sys/kernel/sched_ext')) {
    const state = readText('/sys/kernel/sched_ext/state')?.trim() ?? 'unknown';
    const ops = readText('/sys/kernel/sched_ext/root/ops')?.trim() || null;
    return { ok: true, detail: `sched_ext present (state ${state}${ops ? `, scheduler ${ops}` : ', no BPF scheduler loaded'})`, data: { state, ops } };
  }
  const why = !v ? 'kernel version unreadable' : !atLeast(v, 6, 12) ? `Linux ${release()} is older than 6.12` : `Linux ${release()} is built without CONFIG_SCHED_CLASS_EXT`;
  return { ok: false, detail: `no sched_ext: ${why}`, data: { state: null } };
}

/** The memcg_bpf_ops probe (the memcg_bpf_ops RFC series on the bpf list: an RFC, not upstream). */
export function memcgBpfProbe(btf = '/sys/kernel/btf/vmlinux'): ProbeResult {
  try {
    const found = fileContains(btf, 'memcg_bpf_ops');
    return found
      ? { ok: true, detail: 'memcg_bpf_ops struct_ops found in the kernel BTF', data: { btf: true, found } }
      : { ok: false, detail: 'no memcg_bpf_ops in the kernel BTF (the RFC patch series is not upstream and not applied here)', data: { btf: true, found } };
  } catch (error) {
    return { ok: false, detail: `no kernel BTF (${btf}: ${(error as NodeJS.ErrnoException).code}): memcg_bpf_ops unknown, no CO-RE`, data: { btf: false, found: false } };
  }
}

/** `/proc/meminfo` values in bytes (kB lines). */
export function meminfo(text = readText('/proc/meminfo') ?? ''): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^(\w+):\s+(\d+) kB$/gm)) out[m[1]!] = Number(m[2]) * 1024;
  return out;
}

/** The swap probe: what swap means for memory.high (test-machines.md: without it a call stalls near the limit). */
export function swapProbe(): ProbeResult {
  const info = meminfo();
  const total = info.SwapTotal ?? 0;
  const data = { swap_total_bytes: total, swap_free_bytes: info.SwapFree ?? 0 };
  if (total === 0) {
    return {
      ok: false,
      detail: 'no swap: anonymous memory above memory.high cannot be reclaimed, so a call over its tier stalls instead of slowing; after a sustained full stall cordon raises memory.high one tier at a time (never memory.max, never a kill)',
      data,
    };
  }
  return { ok: true, detail: `${mib(total)} MiB swap: memory above memory.high is swapped out and the call slows down rather than stalls`, data };
}

/** The tier table in MiB over this machine's RAM base (MemTotal, or the parent cgroup's lower limit). */
export function tierProbe(where: Placement, context: ProbeContext): ProbeResult {
  const memTotal = meminfo().MemTotal ?? 0;
  const top = where.mounts.v2?.mountPoint;
  const parent = where.anchor && top ? effectiveLimit(join(where.anchor, CONTAINER), top) : null;
  const ram = parent !== null && parent < memTotal ? parent : memTotal;
  // `memory_high_mb` holds whole MiB, as its label says; the field keeps its name for readers of the JSON.
  const rows = context.tiers.map((t) => {
    const bytes = tierBytes(t, ram);
    return { tier: t.name, memory_high_bytes: bytes, memory_high_mb: bytes === null ? null : mib(bytes), cpu_weight: t.cpuWeight };
  });
  const lines = rows.map((r) => `${r.tier.padEnd(7)} memory.high ${(r.memory_high_mb === null ? 'max' : `${r.memory_high_mb} MiB`).padStart(10)}   cpu.weight ${r.cpu_weight}`);
  return {
    ok: true,
    detail: `tiers over ${mib(ram)} MiB (${ram === memTotal ? 'MemTotal' : "the parent cgroup's limit"}); the hint comes from --hint, else AGENT_RESOURCE_HINT, else memory:medium`,
    lines,
    data: { ram_bytes: ram, source: ram === memTotal ? 'MemTotal' : 'parent limit', tiers: rows },
  };
}

/** Every probe this plugin registers, in printing order; the gates decide whether cgroup-linux can enforce. */
export function probeEntries(): ProbeEntry[] {
  const p = (name: string, order: number, gate: boolean, run: (where: Placement, context: ProbeContext) => ProbeResult): ProbeEntry => ({
    name,
    order,
    ...(gate ? { gate: BACKEND } : {}),
    run: async (context) => {
      try {
        return run(placement(), context);
      } catch (error) {
        return { ok: false, detail: `probe failed: ${(error as Error).message}` };
      }
    },
  });
  return [
    p('linux', 10, true, () => (process.platform === 'linux' ? { ok: true, detail: `Linux ${release()}`, data: { kernel: release() } } : { ok: false, detail: `${process.platform} is not Linux` })),
    p('cgroup2', 20, true, mountProbe),
    p('controllers', 30, true, controllersProbe),
    p('delegation', 40, true, delegationProbe),
    p('psi', 50, false, psiProbe),
    p('memory.peak', 60, false, peakProbe),
    p('sched_ext', 70, false, schedExtProbe),
    p('memcg_bpf_ops', 80, false, () => memcgBpfProbe()),
    p('swap', 90, false, swapProbe),
    p('tiers', 100, false, tierProbe),
  ];
}
