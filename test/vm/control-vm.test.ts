import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatProbeReport } from '../../packages/host/src/control/probe.js';
import { bootOnce, vmUnavailable, type BootResult } from './machine.js';

// `cordon control` on a real cgroup v2 kernel: one qemu boot runs every case
// (test/vm/guest.mjs) against the built project, then these tests judge what it wrote.
// Skipped, with the reason printed, only where qemu or the kernel cannot be had
// (scripts/vm-prepare.sh, run by `npm test`'s preparation, installs them).

const MiB = 2 ** 20;
const unavailable = vmUnavailable();
if (unavailable) console.log(`VM suite skipped: ${unavailable}`);

interface Case {
  code: number | null;
  stdout: string;
  stderr: string;
  record?: Record<string, any>;
  leftover: string[];
}
let boot: BootResult;
let results: {
  cases: Record<string, any>;
  error?: string;
  started: number;
  ended: number;
  swapon?: number;
  swap_probe?: unknown;
  done?: boolean;
  psiHideError?: string;
  psiReadableAfter?: boolean;
  measure?: Record<string, any>;
};
const c = (name: string): Case => results.cases[name] as Case;

describe.skipIf(unavailable !== undefined)('cordon control on a real cgroup v2 kernel (qemu)', () => {
  beforeAll(async () => {
    const log = process.env.CORDON_VM_VERBOSE ? (l: string) => console.log(`[vm] ${l}`) : undefined;
    boot = await bootOnce(join(import.meta.dirname, 'guest.mjs'), 230_000, log);
    const file = join(boot.share, 'results.json');
    if (!existsSync(file)) throw new Error(`the guest wrote no results (qemu exit ${boot.exitCode}, ${(boot.wallMs / 1000).toFixed(0)} s):\n${boot.console.slice(-4000)}`);
    results = JSON.parse(readFileSync(file, 'utf8'));
    console.log(`VM boot: ${(boot.wallMs / 1000).toFixed(1)} s wall; guest cases from ${results.started} s to ${results.ended} s of guest uptime`);
    if (results.error) console.log(`guest error: ${results.error}`);
  }, 240_000);

  it('runs every guest case in one boot (qemu is stopped at 230 s, so a stuck guest fails here, not by timing)', () => {
    expect(results.error).toBeUndefined();
    expect(results.done).toBe(true);
  });

  it('probe: available, pure cgroup v2, the tier table over the VM RAM', () => {
    const probe = c('probe_json');
    expect(probe.code).toBe(0);
    const report = JSON.parse(probe.stdout);
    // The text `cordon control probe` prints for this report (the command renders it the same way).
    const text = formatProbeReport(report).join('\n');
    console.log(`probe in the VM:\n${text}`);
    expect(text).toMatch(/^enforcement: available \(cgroup-linux\)/);
    expect(text).toMatch(/^ {2}cgroup2 +yes +pure cgroup v2 at \/sys\/fs\/cgroup$/m);
    expect(text).toMatch(/^ {2}swap +no +no swap/m);
    expect(report.available).toBe(true);
    const byName = Object.fromEntries(report.probes.map((p: any) => [p.name, p]));
    expect(byName.controllers.data.available).toEqual(expect.arrayContaining(['memory', 'cpu']));
    expect(byName.delegation.ok).toBe(true);
    expect(byName.psi.ok).toBe(true);
    expect(byName['memory.peak'].ok).toBe(true);
    expect(byName.sched_ext.ok).toBe(false); // Debian's 6.1 predates sched_ext
    expect(byName.memcg_bpf_ops.ok).toBe(false);
    expect(byName.tiers.data.ram_bytes).toBeGreaterThan(900 * MiB);
  });

  it('memory:low: a 300 MiB allocation is throttled, finishes, exits 0, and the note gives the measured figures', () => {
    const low = c('low_1');
    const r = low.record!;
    expect(low.code).toBe(0);
    expect(r).toMatchObject({ enforced: true, backend: 'cgroup-linux', tier: 'low', removed: true, exit_code: 0, peak_source: 'memory.peak' });
    expect(r.limit_bytes).toBe(Math.floor(0.025 * r.ram_bytes));
    expect(r.events.high).toBeGreaterThan(0);
    expect(r.stall_full_ms).toBeGreaterThan(0);
    expect(r.warned).toBe(true);
    const note = low.stderr.trim().split('\n').at(-1)!;
    expect(note).toMatch(/^\[cordon\] This tool call was resource-limited\. /);
    expect(note).toContain(`It peaked at ${Math.round(r.peak_bytes / MiB)} MiB against a memory:low limit of ${Math.round(r.limit_bytes / MiB)} MiB.`);
    expect(note).toContain(`It stalled on memory for ${(r.stall_full_ms / 1000).toFixed(1)} s`);
    expect(note).not.toContain('retrying');
    console.log(`memory:low note: ${note}`);
    expect(low.stderr.split('\n')[0]).toBe(
      `[cordon] cgroup ${r.domain} (root-cgroup): memory.high=${r.limit_bytes} (memory:low of ${Math.round(r.ram_bytes / MiB)} MiB), cpu.weight=25, memory.oom.group=1`,
    );
  });

  it('without swap a sustained full stall raises memory.high one tier at a time, never memory.max, never a kill', () => {
    const r = c('low_1').record!;
    expect(r.escalations.length).toBeGreaterThan(0);
    const ladder = ['low', 'medium', 'high', 'max'];
    r.escalations.forEach((e: any, i: number) => {
      expect(ladder.indexOf(e.to)).toBe(ladder.indexOf(e.from) + 1);
      if (i > 0) expect(e.from).toBe(r.escalations[i - 1].to);
    });
    expect(r.final_tier).toBe(r.escalations.at(-1).to);
    expect(r.events.oom_kill ?? 0).toBe(0);
    expect(r.events.max ?? 0).toBe(0);
    expect(c('low_1').stderr).toContain(`cordon raised memory.high to memory:${r.escalations[0].to}`);
  });

  it('the third throttled run of the same command gets the escalation line', () => {
    expect(c('low_2').record!.warning_number).toBe(2);
    expect(c('low_2').stderr).not.toContain('retrying');
    expect(c('low_3').record!.warning_number).toBe(3);
    expect(c('low_3').stderr).toContain('This is limit warning number 3 for this exact command; retrying it unchanged is unlikely to help.');
  });

  it('memory:max: the same command gets no note', () => {
    const max = c('max');
    expect(max.code).toBe(0);
    expect(max.record).toMatchObject({ tier: 'max', limit_bytes: null, warned: false, enforced: true });
    expect(max.record!.events.high).toBe(0);
    expect(max.stderr).not.toContain('resource-limited');
  });

  it('an OOM kill under the harness memory.max is reported', () => {
    const oom = c('oom');
    expect(oom.code).toBe(137);
    expect(oom.record!.events.oom_kill).toBeGreaterThan(0);
    expect(oom.record!.ram_bytes).toBe(200 * MiB); // the parent's limit is the RAM base
    expect(oom.stderr).toMatch(/It was killed by the OOM killer \(memory\.events oom_kill \d+\)/);
  });

  it('a freeze is reported and the call resumes', () => {
    const f = c('freeze');
    expect(f.code).toBe(0);
    expect(results.cases.freeze.output).toBe('done\n');
    expect(f.record!.frozen_count).toBe(1);
    expect(f.record!.frozen_ms).toBeGreaterThan(1000);
    expect(f.stderr).toMatch(/It was frozen for \d+\.\d s and resumed, not killed\./);
  });

  it('removes every call cgroup, also after cordon was SIGKILLed (the next run cleans up)', () => {
    for (const name of ['low_1', 'low_2', 'low_3', 'max', 'oom', 'freeze', 'nested', 'nopsi', 'after_sigkill']) expect(c(name).leftover, name).toEqual([]);
    const k = results.cases.sigkill;
    expect(k.afterKill).toContain(k.killed);
    expect(k.afterNext).toEqual([]);
    // The CLI (fast route) enforced the default tier, memory:medium, before it was killed (the
    // kernel keeps memory.high in whole 4 KiB pages).
    const ram = c('low_1').record!.ram_bytes;
    expect(Number(k.memoryHigh)).toBe(Math.floor(Math.floor(0.1 * ram) / 4096) * 4096);
  });

  it('with swap (zram) the call is throttled and finishes; probe reports the swap', () => {
    expect(results.swapon).toBe(0);
    const s = c('swap_low');
    expect(s.code).toBe(0);
    expect(s.record!.events.high).toBeGreaterThan(0);
    console.log(`with swap: ${s.record!.escalations.length} escalation(s), stall ${s.record!.stall_full_ms} ms, wall ${s.record!.wall_ms} ms`);
    expect(results.swap_probe).toMatchObject({ ok: true, detail: expect.stringMatching(/^512 MiB swap: /) });
  });

  it('a root call stays under the agent cgroup: 250 MiB is OOM-killed under memory.max=150M with cordon as without', () => {
    const a = results.cases.agent;
    // Without cordon: the shell exec'd dd, which the kernel's OOM killer ended.
    expect(a.without).toMatchObject({ code: null, signal: 'SIGKILL' });
    const r = a.with.record;
    // cordon ends the way its command ended (as env and timeout do): killed by the same SIGKILL.
    expect([a.with.code, a.with.signal], a.with.stderr).toEqual([null, 'SIGKILL']);
    expect(r).toMatchObject({ enforced: true, exit_code: 137, signal: 'SIGKILL', placement: 'agent-cgroup-leaf', removed: true, ram_bytes: 150 * MiB, tier: 'max' });
    expect(r.domain).toMatch(/^\/sys\/fs\/cgroup\/agent\/cordon\/run-/);
    expect(r.events.oom_kill).toBeGreaterThan(0);
    expect(a.with.stderr).toMatch(/It was killed by the OOM killer/);
    // cordon moved itself (the agent's cgroup's only process) into cordon-leaf; no call cgroup is left.
    expect(a.below.sort()).toEqual(['cordon', 'cordon-leaf']);
  });

  it('in a cgroup namespace the memory.max of the container is the RAM base of control run', () => {
    const k = results.cases.container;
    expect(k.code, `${k.stdout}\n${k.stderr}`).toBe(0);
    expect(k.cgroup).toBe('0::/\n');
    expect(k.mountinfo).toMatch(/ \/ \/sys\/fs\/cgroup .* - cgroup2 /);
    const r = k.record;
    expect(r).toMatchObject({ enforced: true, placement: 'agent-cgroup-leaf', ram_bytes: 200 * MiB, limit_bytes: Math.floor(0.35 * 200 * MiB), removed: true });
    expect(r.domain).toMatch(/^\/sys\/fs\/cgroup\/cordon\/run-/);
    expect(r.limit_bytes).toBeLessThan(200 * MiB); // memory:high fits inside the container
    expect(k.below.sort()).toEqual(['cordon', 'cordon-leaf']);
  });

  it('a command that makes sub-cgroups and leaves processes behind: the subtree is removed and the ended processes are named', () => {
    const n = c('nested');
    const r = n.record!;
    expect(n.code).toBe(0);
    expect(r.removed).toBe(true);
    expect(results.cases.nested.staleGone).toBe(true); // a SIGKILLed run's leftover with sub-cgroups
    expect(results.cases.nested.below).toEqual([]);
    const commands = r.ended.map((p: any) => p.command).sort();
    expect(commands).toEqual(['sleep 300', 'sleep 301']);
    for (const p of r.ended) expect(p.pid).toBeGreaterThan(1);
    const note = n.stderr.trim().split('\n').at(-1)!;
    console.log(`ended note: ${note}`);
    expect(note).toMatch(/^\[cordon\] When this tool call ended, cordon ended 2 processes it had left running: \d+ \(sleep 30[01]\), \d+ \(sleep 30[01]\)\./);
    expect(r.warned).toBe(false);
  });

  it('without PSI a call throttled far over memory.high gets the note and the escalation from memory.events', () => {
    expect(results.psiHideError).toBeUndefined();
    expect(results.psiReadableAfter).toBe(false);
    const n = c('nopsi');
    const r = n.record!;
    expect(n.code).toBe(0);
    expect(r).toMatchObject({ stall_source: 'memory.events', stall_full_ms: null, warned: true });
    expect(r.events.high).toBeGreaterThan(0);
    expect(r.throttled_ms).toBeGreaterThan(0);
    expect(r.escalations.length).toBeGreaterThan(0);
    expect(r.escalations.every((e: any) => e.cause === 'memory.events')).toBe(true);
    const note = n.stderr.trim().split('\n').at(-1)!;
    console.log(`no-PSI note: ${note}`);
    expect(note).toContain(`It was throttled over its memory limit for about ${(r.throttled_ms / 1000).toFixed(1)} s`);
    expect(note).toContain(`memory.events high ${r.events.high}, no PSI here`);
    expect(note).toContain('After sustained throttling over memory.high cordon raised memory.high to memory:medium');
  });

  it('memory.high without swap: one large read finishes after a few capped penalties; small writes crawl (measured, printed)', () => {
    const { dd, tmpfs } = results.measure!;
    const line = (m: any) => `exit ${m.code ?? m.signal}, ${(m.wallMs / 1000).toFixed(1)} s, memory.events high ${m.high}, PSI full ${(m.fullStallMs / 1000).toFixed(1)} s`;
    console.log(`memory.high=24M, no swap, no cordon: dd bs=300M count=1: ${line(dd)}; timeline [ms, memory.current, high]: ${JSON.stringify(dd.timeline)}`);
    console.log(`memory.high=24M, 1 MiB writes to tmpfs: ${line(tmpfs)}, wrote ${(tmpfs.written / MiB).toFixed(1)} MiB in the window`);
    // The single read finished on its own (no escalation here) after being throttled.
    expect(dd.code).toBe(0);
    expect(dd.high).toBeGreaterThan(0);
    expect(dd.fullStallMs).toBeGreaterThan(0);
    // The writer was still crawling when the window closed: far from its 300 MiB.
    expect(tmpfs.signal).toBe('SIGKILL');
    expect(tmpfs.written).toBeLessThan(100 * MiB);
    expect(tmpfs.high).toBeGreaterThan(0);
  });
});
