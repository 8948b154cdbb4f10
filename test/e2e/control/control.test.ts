import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORDON_BIN, REPO_ROOT, linkPluginRoots, makeSandbox, runCordon, type Sandbox } from '../../support/cli.js';

// `cordon control probe` and `cordon control run` through the built bin on this machine, with
// @cordon/cgroup-linux linked. Here cgroups are hybrid (cgroup v2 without the memory and cpu
// controllers), so commands run unguarded: the pass-through, exit codes, signals, the fallback
// log and the run record are what this suite proves. Enforcement itself is proven in test/vm.

let sandbox: Sandbox;
let available = false;
const mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
const hybridHere = / - cgroup2 /.test(mountinfo) && / - cgroup cgroup \S*\bmemory\b/.test(mountinfo);

beforeAll(async () => {
  sandbox = makeSandbox('cordon-control-');
  linkPluginRoots(sandbox.dataDir, [{ name: '@cordon/cgroup-linux', root: join(REPO_ROOT, 'plugins/cgroup-linux') }]);
  const probe = await runCordon(['control', 'probe', '--json'], { env: sandbox.env });
  available = (JSON.parse(probe.stdout) as { available: boolean }).available;
});
afterAll(() => sandbox.cleanup());

const records = (): Array<Record<string, any>> =>
  readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);

describe('cordon control probe', () => {
  it('reports every check and exits 1 with the reason where it cannot enforce', async () => {
    const r = await runCordon(['control', 'probe'], { env: sandbox.env });
    const lines = r.stdout.split('\n');
    for (const name of ['linux', 'cgroup2', 'controllers', 'delegation', 'psi', 'memory.peak', 'sched_ext', 'memcg_bpf_ops', 'swap', 'tiers']) {
      expect(lines.some((l) => new RegExp(`^  ${name.replace('.', '\\.')}\\s+(yes|no) `).test(l)), name).toBe(true);
    }
    expect(r.stdout).toMatch(/^\s+low\s+memory\.high\s+\d+ MiB\s+cpu\.weight 25$/m);
    // Sizes are whole MiB and say so (they were labelled MB).
    expect(r.stdout).toMatch(/^  tiers\s+yes  tiers over \d+ MiB \((MemTotal|the parent cgroup's limit)\); /m);
    expect(r.stdout).not.toMatch(/\d MB\b/);
    expect(r.stdout).toMatch(/^\s+max\s+memory\.high\s+max\s+cpu\.weight 1000$/m);
    if (hybridHere) {
      expect(r.exitCode).toBe(1);
      expect(lines[0]).toBe('enforcement: unavailable: hybrid cgroup v1/v2: memory and cpu are bound to cgroup v1; cgroup v2 at /sys/fs/cgroup/unified offers ' + readFileSync('/sys/fs/cgroup/unified/cgroup.controllers', 'utf8').trim() + '; `cordon control run` runs commands unguarded');
      expect(lines[1]).toContain('systemd.unified_cgroup_hierarchy=1');
    }
    expect(r.exitCode).toBe(available ? 0 : 1);
  });

  it('prints the same as JSON, the tier table in bytes over MemTotal', async () => {
    const r = await runCordon(['control', 'probe', '--json'], { env: sandbox.env });
    const report = JSON.parse(r.stdout) as { available: boolean; reason: string | null; probes: Array<{ name: string; gate: string | null; ok: boolean; data?: any }> };
    expect(r.exitCode).toBe(report.available ? 0 : 1);
    const memTotal = Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]) * 1024;
    const tiers = report.probes.find((p) => p.name === 'tiers')!;
    expect(tiers.data.ram_bytes).toBeLessThanOrEqual(memTotal);
    expect(tiers.data.tiers.map((t: any) => t.memory_high_bytes)).toEqual([...[0.025, 0.1, 0.35].map((f) => Math.floor(f * tiers.data.ram_bytes)), null]);
    expect(report.probes.filter((p) => p.gate).map((p) => p.name)).toEqual(['linux', 'cgroup2', 'controllers', 'delegation']);
    const swapTotal = Number(/^SwapTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]);
    expect(report.probes.find((p) => p.name === 'swap')!.ok).toBe(swapTotal > 0);
    if (hybridHere) expect(report.probes.find((p) => p.name === 'cgroup2')).toMatchObject({ ok: false, data: { kind: 'hybrid' } });
  });

  it('says no backend is installed when no plugin registered gate probes', async () => {
    const bare = makeSandbox('cordon-control-bare-');
    try {
      const r = await runCordon(['control', 'probe'], { env: bare.env });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/^enforcement: unavailable: no enforcement backend is installed/);
    } finally {
      bare.cleanup();
    }
  });

  it('exits 2 on bad input', async () => {
    expect((await runCordon(['control', 'probe', '--bogus'], { env: sandbox.env })).exitCode).toBe(2);
    expect((await runCordon(['control', 'probe', 'extra'], { env: sandbox.env })).exitCode).toBe(2);
  });
});

describe('cordon control run (this machine: unguarded unless probe says otherwise)', () => {
  it('passes stdin, stdout and stderr through byte for byte and adds nothing', async () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256));
    const r = await runProcessBytes([process.execPath, CORDON_BIN, 'control', 'run', '--', 'sh', '-c', 'cat; printf "e\\0rr\\n" >&2'], bytes, sandbox.env);
    expect(r.code).toBe(0);
    expect(r.stdout.equals(bytes)).toBe(true);
    expect(r.stderr.equals(Buffer.from('e\0rr\n'))).toBe(true);
  });

  it('gives the command exactly the environment cordon got, through the fast route and through oclif', async () => {
    // The fast route hands the command its own environment without copying it (spawnDirect
    // inherits); a changed or missing variable would show here.
    const env = { ...sandbox.env, CORDON_T_SPACES: 'a b  c', CORDON_T_EMPTY: '', CORDON_T_EQUALS: 'x=y=z' };
    const expected = spawnSync('env', ['-0'], { env }).stdout.toString().split('\0').sort();
    for (const route of [{}, { CORDON_NO_FAST_ROUTE: '1' }]) {
      const r = await runCordon(['control', 'run', '--', 'env', '-0'], { env: { ...env, ...route } });
      expect(r.exitCode).toBe(0);
      const seen = r.stdout.split('\0').filter((pair) => !pair.startsWith('CORDON_NO_FAST_ROUTE=')).sort();
      expect(seen, JSON.stringify(route)).toEqual(expected);
    }
  });

  it("exits with the command's code, dies of its signal (signals.test.ts), or 127 when it cannot start", async () => {
    for (const [argv, code] of [
      [['true'], 0],
      [['sh', '-c', 'exit 7'], 7],
      [['sh', '-c', 'exit 255'], 255],
      [['sh', '-c', 'kill -KILL $$'], 'SIGKILL'],
      [['sh', '-c', 'kill -TERM $$'], 'SIGTERM'],
    ] as const) {
      const r = await runCordon(['control', 'run', '--', ...argv], { env: sandbox.env });
      expect(r.signal ?? r.exitCode, argv.join(' ')).toBe(code);
    }
    const missing = await runCordon(['control', 'run', '--', 'cordon-no-such-command-here'], { env: sandbox.env });
    expect(missing.exitCode).toBe(127);
    expect(missing.stderr).toMatch(/cordon-no-such-command-here/);
    // Found but not runnable: 126, as sh, GNU env and timeout give it.
    const plain = join(sandbox.root, 'not-executable.sh');
    writeFileSync(plain, '#!/bin/sh\necho never\n', { mode: 0o644 });
    for (const [path, why] of [
      [plain, 'not executable'],
      [sandbox.root, 'is a directory'],
    ] as const) {
      const r = await runCordon(['control', 'run', '--', path], { env: sandbox.env });
      expect({ path, exitCode: r.exitCode, stdout: r.stdout }).toEqual({ path, exitCode: 126, stdout: '' });
      expect(r.stderr).toBe(`cordon control run: cannot start '${path}': ${why}\n`);
      const sh = spawnSync('sh', ['-c', '"$0"', path]);
      expect(sh.status).toBe(126);
    }
  });

  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT', 'SIGUSR1'] as const) {
    it(`forwards ${signal} to the command`, async () => {
      const script = `process.on('${signal}', () => { console.log('got ${signal}'); process.exit(3) }); console.log('ready'); setInterval(() => {}, 1000)`;
      const child = spawn(process.execPath, [CORDON_BIN, 'control', 'run', '--', process.execPath, '-e', script], { env: sandbox.env, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      await new Promise<void>((resolve) => child.stdout.on('data', (b: Buffer) => ((out += b), out.includes('ready') && resolve())));
      child.kill(signal);
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(out).toContain(`got ${signal}`);
      expect(code).toBe(3);
    });
  }

  it('logs what it would have applied, prints one line only with --verbose, and records every run', async () => {
    if (available) return; // enforced here: test/vm covers this machine's kind of run
    const quiet = await runCordon(['control', 'run', '--hint', 'memory:low', '--', 'sh', '-c', 'echo $AGENT_RESOURCE_HINT'], { env: sandbox.env });
    expect(quiet.stdout).toBe('memory:low\n');
    expect(quiet.stderr).toBe('');
    const loud = await runCordon(['control', 'run', '--verbose', '--', 'true'], { env: { ...sandbox.env, AGENT_RESOURCE_HINT: 'memory:high' } });
    const memTotal = Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]) * 1024;
    const high = Math.floor(0.35 * memTotal);
    expect(loud.stderr).toBe(
      `[cordon] unguarded: no enforcement backend can enforce here (cordon control probe says why); would apply memory.high=${high} (${Math.round(high / 2 ** 20)} MiB, memory:high of ${Math.round(memTotal / 2 ** 20)} MiB) and cpu.weight=400\n`,
    );
    const log = readFileSync(join(sandbox.dataDir, 'logs/cordon.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const unguarded = log.filter((l) => l.message === 'control run: unguarded (no enforce backend answered)');
    expect(unguarded.at(-2)).toMatchObject({ argv: ['sh', '-c', 'echo $AGENT_RESOURCE_HINT'], tier: 'low', memory_high: Math.floor(0.025 * memTotal), cpu_weight: 25 });
    expect(unguarded.at(-1)).toMatchObject({ argv: ['true'], tier: 'high', memory_high: high, cpu_weight: 400 });
    const [a, b] = records().slice(-2);
    expect(a).toMatchObject({ enforced: false, backend: null, tier: 'low', hint: 'memory:low', exit_code: 0, limit_bytes: Math.floor(0.025 * memTotal), warned: false });
    expect(b).toMatchObject({ enforced: false, tier: 'high', hint: 'memory:high', cpu_weight: 400, exit_code: 0 });
  });

  it('prints the run record as JSON after the output with --json', async () => {
    const r = await runCordon(['control', 'run', '--json', '--', 'sh', '-c', 'echo hi; exit 4'], { env: sandbox.env });
    expect(r.exitCode).toBe(4);
    const [first, second] = r.stdout.trimEnd().split('\n');
    expect(first).toBe('hi');
    expect(JSON.parse(second!)).toMatchObject({ argv: ['sh', '-c', 'echo hi; exit 4'], command: 'sh -c echo hi; exit 4', exit_code: 4, tier: 'medium', enforced: available });
  });

  it('exits 2 on a bad hint or a missing command, without running anything', async () => {
    const bad = await runCordon(['control', 'run', '--hint', 'memory:huge', '--', 'sh', '-c', 'echo ran'], { env: sandbox.env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('memory:huge');
    expect((await runCordon(['control', 'run'], { env: sandbox.env })).exitCode).toBe(2);
    // A hint from the environment is forgiving (a model writes it): unknown tokens are skipped.
    const env = await runCordon(['control', 'run', '--json', '--', 'true'], { env: { ...sandbox.env, AGENT_RESOURCE_HINT: 'memory:huge cpu:low' } });
    expect(env.exitCode).toBe(0);
    expect(JSON.parse(env.stdout)).toMatchObject({ tier: 'medium', cpu_weight: 25 });
  });
});

/** Runs argv with `input` on stdin and returns stdout and stderr as bytes. */
function runProcessBytes(argv: string[], input: Buffer, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: Buffer; stderr: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
    child.stdin.end(input);
  });
}
