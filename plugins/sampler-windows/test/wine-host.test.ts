import { spawn, spawnSync } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeExe, prepare, repo, wineDir, wineEnv, winPath } from './wine-harness.js';

// The host's own sampler on Windows, under Wine: a stand-in agent (test/wine/agent.cjs, Windows
// node.exe) runs the built `cordon hook` through cmd.exe for two sessions. What runs is what a
// Windows user has: the host from this repository, and @cordon/claude-code and
// @cordon/sampler-windows installed as user plugins in the data directory (package.json + dist, as
// `cordon plugins install` lays them out), koffi with its Windows prebuilt beside them. Checked:
// the detached start from the first hook, one sampler per session (lock), the walk from the
// hook's cmd.exe to the agent, samples of the agent's tree, the stop on STOP (SessionEnd) and on
// the agent's exit, and `cordon reduce` (Linux) reading what Windows wrote.

const host = join(repo, 'packages/host');
const payloads = '/work/shared/fixtures/hook-payloads';
const sharedPayloads = existsSync(payloads) ? payloads : join(repo, '../shared/fixtures/hook-payloads');

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
    for (const f of ['claude-code.PreToolUse.Bash.json', 'claude-code.PostToolUse.Bash.json', 'claude-code.SessionEnd.json']) cpSync(join(sharedPayloads, f), join(work, 'payloads', f));
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
      expect(Math.max(...samples.map((s) => s.cpu_pct))).toBeGreaterThan(30);

      // `cordon reduce` on Linux reads what the Windows processes wrote.
      const reduce = spawnSync(process.execPath, [join(host, 'bin/run.cjs'), 'reduce', '--session', 'wine-session-a', '--jsonl'], { env: { ...process.env, CORDON_DATA_DIR: data, CORDON_DB: join(work, 'telemetry.sqlite3') }, encoding: 'utf8', timeout: 60_000 });
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
