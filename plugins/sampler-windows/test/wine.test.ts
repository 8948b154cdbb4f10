import { spawn, spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HOOK_PAYLOADS } from '../../../test/support/fixtures.js';
import { dist, MiB, nodeExe, prepare, repo, wineDir, wineEnv, winPath } from './wine-harness.js';

// The Wine suites, in one file so that they run one after the other (they share a Wine prefix,
// and a stuck run ends that prefix's wineserver). First the Windows node.exe runs the built sampler (TreeReader + the real
// NtQuerySystemInformation call through koffi's Windows prebuilt) against a tree of node.exe
// processes. Prepared by scripts/install-wine.sh (run by scripts/test-prepare.sh and again here,
// where it is quick once done). test/wine/loop.mjs reads the tree every 250 ms and stops when the
// root exits; then the host's own sampler (hook, lock, detached start, samples.jsonl), below.

interface LoopRun {
  /** loop.mjs wrote its first lines (the recorded table and the root's pid). */
  started: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The 110 s guard fired and killed the run. */
  timedOut: boolean;
  /** Wall time of the run, ms. */
  ms: number;
  /** What node.exe and Wine printed (stdout and stderr share one file). */
  output: string;
}

/** Runs loop.mjs under the Windows node.exe once (samples into `work`), with a 110 s guard. */
async function runLoop(work: string): Promise<LoopRun> {
  rmSync(join(work, 'samples.jsonl'), { force: true });
  rmSync(join(work, 'go'), { force: true });
  // node.exe's stdout must be a file under Wine (a pipe makes console.log throw EBADF).
  const outPath = join(work, 'stdout.txt');
  const out = openSync(outPath, 'w');
  const t0 = Date.now();
  let timedOut = false;
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    const child = spawn('wine', [nodeExe, winPath(join(work, 'loop.mjs')), winPath(work)], { stdio: ['ignore', out, out], env: wineEnv() });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
      // The node.exe tree lives on under this prefix's wineserver: end it too.
      spawnSync('wineserver', ['-k'], { env: wineEnv(), timeout: 20_000 });
    }, 110_000);
    child.on('error', reject);
    child.on('exit', (c, s) => {
      clearTimeout(timer);
      resolve({ code: c, signal: s });
    });
  });
  closeSync(out);
  const samples = existsSync(join(work, 'samples.jsonl')) ? readFileSync(join(work, 'samples.jsonl'), 'utf8') : '';
  return { started: samples.includes('"root"'), code, signal, timedOut, ms: Date.now() - t0, output: readFileSync(outPath, 'utf8') };
}

/** One paragraph on a run for a failure message. */
function describeRun(r: LoopRun): string {
  const end = r.timedOut ? 'killed by the 110 s guard' : r.signal ? `ended by ${r.signal}` : `exit ${r.code}`;
  return `node.exe loop.mjs under Wine: ${end} after ${r.ms} ms; output:\n${r.output.slice(-4000) || '(none)'}`;
}

/** `node.exe -e` writing a file: tells a Wine that cannot start node.exe from a failing loop. */
function smokeTest(): string {
  const file = join(wineDir, 'run', `smoke-${process.pid}.txt`);
  rmSync(file, { force: true });
  const r = spawnSync('wine', [nodeExe, '-e', `require('fs').writeFileSync(${JSON.stringify(winPath(file))}, process.version)`], { env: wineEnv(), encoding: 'utf8', timeout: 60_000 });
  const wrote = existsSync(file) ? readFileSync(file, 'utf8') : '(no file)';
  rmSync(file, { force: true });
  return `smoke test node.exe -e: status ${r.status} signal ${r.signal} wrote ${wrote}; stderr:\n${(r.stderr ?? '').slice(-2000)}`;
}

interface Reading {
  t: number;
  rssBytes: number;
  cpuPct: number;
  nProcs: number;
  partial: boolean;
  rootAlive: boolean;
}

describe('sampler-windows under Wine (Windows node.exe, real NtQuerySystemInformation)', () => {
  it('samples a node.exe tree: the 300 MB peak, the CPU burner, and stops when the root exits', async (ctx) => {
    const unavailable = prepare();
    if (unavailable) {
      console.log(`sampler-windows Wine suite skipped: ${unavailable}`);
      ctx.skip();
      return;
    }
    expect(readdirSync(dist)).toContain('tree.js'); // `npm run build` comes first
    const work = join(wineDir, 'run', `suite-${process.pid}`);
    rmSync(work, { recursive: true, force: true });
    mkdirSync(join(work, 'sampler'), { recursive: true });
    for (const f of readdirSync(dist)) if (f.endsWith('.js')) cpSync(join(dist, f), join(work, 'sampler', f));
    cpSync(fileURLToPath(new URL('./wine/', import.meta.url)), work, { recursive: true });
    try {
      // A run that produced no samples at all (node.exe never reached loop.mjs) is tried once more
      // after ending the prefix's wineserver, and both runs' diagnostics are kept for the failure
      // message: what Wine printed (err channels on), the exit code or signal, and the time taken.
      let run = await runLoop(work);
      const firstTry = run.started ? undefined : run;
      if (firstTry) {
        console.log(`sampler-windows Wine suite: the first run produced no samples; retrying.\n${describeRun(firstTry)}`);
        spawnSync('wineserver', ['-k'], { env: wineEnv(), timeout: 20_000 });
        run = await runLoop(work);
      }
      expect(run.started, [firstTry && describeRun(firstTry), describeRun(run), smokeTest()].filter(Boolean).join('\n\n')).toBe(true);
      expect(run.code, describeRun(run)).toBe(0);
      const lines = readFileSync(join(work, 'samples.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const readings = lines.filter((l) => 't' in l) as unknown as Reading[];

      // Stops on the root's exit: the last reading says so, and the loop ended for that reason.
      expect(lines.at(-1)).toEqual({ stop: 'root-exited' });
      expect(readings.at(-1)).toMatchObject({ rootAlive: false });
      expect(readings.slice(0, -1).every((r) => r.rootAlive)).toBe(true);

      // The whole tree was seen: root + burner + allocator.
      expect(Math.max(...readings.map((r) => r.nProcs))).toBeGreaterThanOrEqual(3);
      // Peak: ≥ 250 MB above the tree at rest (the first three-process readings, taken before
      // the allocator was told to go).
      const baseline = Math.min(...readings.filter((r) => r.nProcs >= 3).map((r) => r.rssBytes));
      const peak = Math.max(...readings.map((r) => r.rssBytes));
      expect(peak - baseline).toBeGreaterThanOrEqual(250 * MiB);

      // CPU: the tree's CPU integrated over the samples covers what the burner itself used
      // (it idles after burning so its final counters are read; shares of a loaded machine vary).
      const burn = JSON.parse(readFileSync(join(work, 'burn.json'), 'utf8')) as { cpuMs: number };
      expect(burn.cpuMs).toBeGreaterThan(100);
      let prev = 0;
      let cpuMs = 0;
      for (const r of readings) {
        cpuMs += (r.cpuPct / 100) * (r.t - prev);
        prev = r.t;
      }
      expect(cpuMs).toBeGreaterThanOrEqual(0.9 * burn.cpuMs);
      expect(Math.max(...readings.map((r) => r.cpuPct))).toBeGreaterThan(0);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 400_000); // two 110 s runs and a smoke test at worst; a good run takes 10–30 s
});

// The host's own sampler on Windows, under Wine: a stand-in agent (test/wine/agent.cjs, Windows
// node.exe) runs the built `cordon hook` through cmd.exe for two sessions. What runs is what a
// Windows user has: the host from this repository, and @cordon/claude-code and
// @cordon/sampler-windows installed as user plugins in the data directory (package.json + dist, as
// `cordon plugins install` lays them out), koffi with its Windows prebuilt beside them. Checked:
// the detached start from the first hook, one sampler per session (lock), the walk from the
// hook's cmd.exe to the agent, samples of the agent's tree, the stop on STOP (SessionEnd) and on
// the agent's exit, and `cordon reduce` (Linux) reading what Windows wrote.

const host = join(repo, 'packages/host');

interface SamplerEvent {
  event: 'start' | 'stop';
  pid: number;
  root_pid?: number;
  named_pid?: number;
  reason?: string;
  t: number;
}
interface Sample {
  t: number;
  mem_mb: number;
  cpu_pct: number;
  n_procs: number;
}

const jsonl = <T>(path: string): T[] => (existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as T) : []);

/** Lays out a data directory with the two plugins installed as user plugins. */
function dataDirWithPlugins(data: string): void {
  const modules = join(data, 'node_modules');
  for (const name of ['claude-code', 'sampler-windows']) {
    const to = join(modules, '@cordon', name);
    mkdirSync(to, { recursive: true });
    cpSync(join(repo, 'plugins', name, 'package.json'), join(to, 'package.json'));
    cpSync(join(repo, 'plugins', name, 'dist'), join(to, 'dist'), { recursive: true });
  }
  // koffi and its Windows prebuilt, installed for win32 by scripts/install-wine.sh.
  cpSync(join(wineDir, 'run/node_modules/koffi'), join(modules, 'koffi'), { recursive: true });
  cpSync(join(wineDir, 'run/node_modules/@koromix/koffi-win32-x64'), join(modules, '@koromix/koffi-win32-x64'), { recursive: true });
  writeFileSync(
    join(data, 'package.json'),
    JSON.stringify({ name: 'cordon-data', private: true, oclif: { schema: 1, plugins: [{ name: '@cordon/claude-code', type: 'user' }, { name: '@cordon/sampler-windows', type: 'user' }] } }),
  );
}

/** Waits until `check` holds or `ms` pass; returns whether it held. */
async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return check();
}

describe('the host sampler on Windows (Windows node.exe under Wine): hook, lock, detached start, stop rules, reduce', () => {
  it('samples the agent above the hook\'s cmd.exe, once per session, and stops on SessionEnd and on the agent\'s exit', async (ctx) => {
    const unavailable = prepare();
    if (unavailable) {
      console.log(`sampler-windows Wine host suite skipped: ${unavailable}`);
      ctx.skip();
      return;
    }
    expect(existsSync(join(host, 'dist/telemetry/sampler/run.js'))).toBe(true); // `npm run build` comes first
    const work = join(wineDir, 'run', `host-${process.pid}`);
    const data = join(work, 'data');
    rmSync(work, { recursive: true, force: true });
    mkdirSync(join(work, 'payloads'), { recursive: true });
    for (const f of ['claude-code.PreToolUse.Bash.json', 'claude-code.PostToolUse.Bash.json', 'claude-code.SessionEnd.json']) cpSync(join(HOOK_PAYLOADS, f), join(work, 'payloads', f));
    cpSync(fileURLToPath(new URL('./wine/agent.cjs', import.meta.url)), join(work, 'agent.cjs'));
    dataDirWithPlugins(data);
    try {
      const outPath = join(work, 'stdout.txt');
      const out = openSync(outPath, 'w');
      const env = wineEnv({ CORDON_DATA_DIR: winPath(data), CORDON_INTERVAL: '250' });
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn('wine', [nodeExe, winPath(join(work, 'agent.cjs')), winPath(join(host, 'bin/run.cjs')), winPath(work)], { stdio: ['ignore', out, out], env, cwd: work });
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          spawnSync('wineserver', ['-k'], { env: wineEnv(), timeout: 20_000 });
        }, 150_000);
        child.on('error', reject);
        child.on('exit', (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      closeSync(out);
      const agentLog = jsonl<Record<string, unknown>>(join(work, 'agent.jsonl'));
      const context = () => `agent: ${JSON.stringify(agentLog)}\noutput: ${readFileSync(outPath, 'utf8').slice(-3000)}\ncordon.log: ${existsSync(join(data, 'logs/cordon.log')) ? readFileSync(join(data, 'logs/cordon.log'), 'utf8').slice(-3000) : '(none)'}`;
      expect(code, context()).toBe(0);
      const agentPid = agentLog[0]?.agent as number;
      // Every hook exited 0 and printed nothing (no decision), through cmd.exe.
      const hooks = agentLog.filter((l) => 'hook' in l);
      expect(hooks.map((h) => [h.hook, h.status, h.stdout]), context()).toEqual([
        ['PreToolUse', 0, ''],
        ['PostToolUse', 0, ''],
        ['SessionEnd', 0, ''],
        ['PreToolUse', 0, ''],
        ['PreToolUse', 0, ''],
        ['PostToolUse', 0, ''],
      ]);

      const runs = join(data, 'runs');
      const sessionDir = (id: string): string => join(runs, readdirSync(runs).find((d) => d.includes(id))!);
      const a = sessionDir('wine-session-a');
      const b = sessionDir('wine-session-b');
      // B's sampler outlives the agent by up to a tick; wait for its stop line.
      expect(await waitFor(() => jsonl<SamplerEvent>(join(b, 'sampler.jsonl')).some((e) => e.event === 'stop'), 20_000), context()).toBe(true);

      for (const [dir, reason] of [[a, 'stop-file'], [b, 'agent-exit']] as const) {
        const events = jsonl<SamplerEvent>(join(dir, 'sampler.jsonl'));
        // One sampler per session (the second PreToolUse of B found it running), detached from
        // the hook, measuring the agent: the hook named its cmd.exe, the sampler stepped past it.
        expect(events.map((e) => e.event), context()).toEqual(['start', 'stop']);
        expect(events[0]!.root_pid).toBe(agentPid);
        expect(events[0]!.named_pid).toBeGreaterThan(0);
        expect(events[0]!.named_pid).not.toBe(agentPid);
        expect(events[1]!.reason).toBe(reason);
        const markers = jsonl<{ event: string; agent_pid?: number }>(join(dir, 'markers.jsonl'));
        expect(markers.filter((m) => m.event === 'tool_start').every((m) => m.agent_pid !== undefined && m.agent_pid !== agentPid)).toBe(true); // the shells
        expect(readdirSync(dir).filter((f) => f.startsWith('sampler.lock.'))).toEqual(['sampler.lock.1']);
      }
      // A stopped on STOP while the agent still ran (it went on to session B).
      const aStop = jsonl<SamplerEvent>(join(a, 'sampler.jsonl'))[1]!;
      const bStart = jsonl<SamplerEvent>(join(b, 'sampler.jsonl'))[0]!;
      expect(aStop.t).toBeLessThan(bStart.t);

      // A's samples: the agent's 200 MB and its CPU burst.
      const samples = jsonl<Sample>(join(a, 'samples.jsonl'));
      expect(samples.length).toBeGreaterThan(5);
      const mem = samples.map((s) => s.mem_mb);
      expect(Math.max(...mem) - Math.min(...mem)).toBeGreaterThanOrEqual(180);
      // The burst: the tree's CPU integrated over the samples covers the agent's 1.5 s of CPU time
      // (a percentage would depend on the share a loaded machine gives it).
      const burstCpuMs = agentLog.find((l) => 'burstCpuMs' in l)?.burstCpuMs as number;
      expect(burstCpuMs, context()).toBeGreaterThanOrEqual(1500);
      let sampledCpuMs = 0;
      for (let i = 1; i < samples.length; i++) sampledCpuMs += (samples[i]!.cpu_pct / 100) * (samples[i]!.t - samples[i - 1]!.t);
      expect(sampledCpuMs, context()).toBeGreaterThanOrEqual(0.9 * burstCpuMs);
      expect(agentLog.filter((l) => 'timeout' in l), context()).toEqual([]);

      // `cordon reduce` on Linux reads what the Windows processes wrote.
      const reduce = spawnSync(process.execPath, [join(host, 'bin/run.cjs'), 'reduce', '--session', 'wine-session-a', '--jsonl'], { env: { ...process.env, CORDON_DATA_DIR: data, CORDON_CACHE_DIR: join(work, 'cache'), CORDON_CONFIG_DIR: join(work, 'config'), CORDON_DB: join(work, 'telemetry.sqlite3') }, encoding: 'utf8', timeout: 60_000 });
      expect(reduce.status, reduce.stderr).toBe(0);
      const calls = reduce.stdout.trim().split('\n').map((l) => JSON.parse(l) as { tool_name: string; peak_memory_mb: number; n_samples: number });
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ tool_name: 'Bash' });
      expect(calls[0]!.n_samples).toBeGreaterThan(5);
      expect(calls[0]!.peak_memory_mb).toBeGreaterThanOrEqual(200);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 300_000);
});
