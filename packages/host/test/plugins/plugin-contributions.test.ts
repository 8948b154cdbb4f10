import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolCall } from '@cordon/plugin-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { CordonHost } from '../../src/bus/host.js';
import { readMarkers } from '../../src/telemetry/markers.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';
import { AGENT_PLUGINS, hookViaSocket, REPO } from '../hot/support.js';

// Issue 29 "Plugins": a plugin whose `apply` throws contributes nothing (its taps made before the
// throw, and after it, never decide a call); taps get the whole command, and the plugin guide's
// example policy (refusing `git push --force`) holds against padding past 2,000 characters.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-plugin-contrib-');
  sandbox.env.CORDON_SAMPLER = 'off';
});
afterEach(() => sandbox.cleanup());

const call = (command: string): ToolCall => ({ agent: 'claude-code', sessionId: 's', callKey: 'k', callKeySource: 'agent', toolName: 'Bash', canonicalTool: 'shell', toolInput: { command }, command, nativeEvent: 'PreToolUse', raw: {} });
const deny = { kind: 'deny', reason: 'from a failed plugin' } as const;

/** A plugin package whose register module is `source` (an ES module exporting `register`). */
function pluginPackage(name: string, source: string): { name: string; root: string } {
  const dir = sandbox.dir(`plugin-${name}`);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '0.0.0', type: 'module', oclif: { hooks: { 'cordon:register': { target: './index.js', identifier: 'register' } } } }));
  writeFileSync(join(dir, 'index.js'), source);
  return { name, root: dir };
}

describe('a plugin whose apply throws contributes nothing', () => {
  it('taps before the throw, after an await, and after the throw never decide; registrations are removed', async () => {
    const host = new CordonHost({ dataDir: sandbox.dataDir, configDir: sandbox.configDir, cacheDir: sandbox.cacheDir } as never, '0.0.0');
    let late: (() => void) | undefined;
    await host.applyPlugins([
      { source: 'a', descriptor: { name: 'a-sync', apply: (api: any) => { api.hooks.beforeToolCall.tap({ name: 't', stage: api.stage.GUARD }, () => deny); throw new Error('apply broke'); } } },
      { source: 'b', descriptor: { name: 'b-async', apply: async (api: any) => { api.hooks.beforeToolCall.tapPromise({ name: 't', stage: api.stage.GUARD }, async () => deny); api.probes.register({ name: 'b-probe', backend: 'x', run: () => ({ ok: true }) }); await Promise.resolve(); throw new Error('later'); } } },
      { source: 'c', descriptor: { name: 'c-late', apply: (api: any) => { late = () => api.hooks.beforeToolCall.tap({ name: 't', stage: api.stage.GUARD }, () => deny); throw new Error('then taps'); } } },
      { source: 'd', descriptor: { name: 'd-good', apply: (api: any) => api.hooks.afterToolCall.tap('t', (r: unknown) => r) } },
    ]);
    late!();
    expect(host.failures.map((f) => f.plugin).sort()).toEqual(['a-sync', 'b-async', 'c-late']);
    expect(host.applied).toEqual(['d-good']);
    expect(host.hooks.beforeToolCall.taps).toEqual([]);
    expect(host.probes.get('b-probe')).toBeUndefined();
    expect(await host.hooks.beforeToolCall.promise(call('rm -rf /'))).toBeUndefined();
    expect(host.hooks.afterToolCall.taps.map((t) => (t as { plugin?: string }).plugin)).toEqual(['d-good']);
  });

  it('through the real hook: the failed plugin is listed as failed and does not answer the call', async () => {
    const broken = pluginPackage('broken-policy', `export async function register() { return { name: 'broken-policy', apply(api) { api.hooks.beforeToolCall.tapPromise({ name: 'deny-all', stage: api.stage.GUARD }, async () => ({ kind: 'deny', reason: 'broken plugin answered' })); throw new Error('apply exploded\\u001b]0;owned\\u0007'); } }; }\n`);
    linkPluginRoots(sandbox.dataDir, [...AGENT_PLUGINS, broken]);
    const payload = JSON.stringify({ session_id: 'sf', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' });
    const r = await hookViaSocket(['--agent', 'claude-code'], payload, false, sandbox.env);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(readMarkers(join(sessionDir(sandbox.dataDir, 'sf'), 'markers.jsonl')).markers.map((m) => m.event)).toEqual(['tool_start']);
    const info = await runCordon(['info'], { env: sandbox.env });
    expect(info.stdout + info.stderr).toContain('apply exploded\\u001b]0;owned\\u0007');
    // The plugin's message reaches the terminal escaped, in info and in the warning.
    expect(info.stdout + info.stderr).not.toContain('\u001b');
  }, 60_000);
});

describe("the plugin guide's force-push policy gets the whole command", () => {
  /** The example exactly as the guide prints it (types stripped), inside a plugin package. */
  function guideExample(): { name: string; root: string } {
    const readme = readFileSync(join(REPO, 'packages/plugin-api/README.md'), 'utf8');
    const block = /```ts\n((?:(?!```)[\s\S])*no-force-push(?:(?!```)[\s\S])*)```/.exec(readme)?.[1];
    expect(block, 'the guide holds the example').toBeDefined();
    const js = block!.replace('(command: string): boolean', '(command)');
    return pluginPackage('guide-example', `export async function register() { return { name: 'guide-example', apply(api) {\n${js}\n} }; }\n`);
  }

  it('denies force pushes however padded or ordered, lets other pushes through, stores the command cut', async () => {
    linkPluginRoots(sandbox.dataDir, [...AGENT_PLUGINS, guideExample()]);
    const cases: Array<[string, boolean]> = [
      [`${' '.repeat(2100)}git push --force`, true],
      [`echo ${'x'.repeat(5000)} && git push origin main --force`, true],
      ['git -C repo   push -f origin', true],
      ['git push origin +main', true],
      ['git push origin main', false],
      [`echo ${'y'.repeat(3000)}; git push`, false],
    ];
    let n = 0;
    for (const [command, denied] of cases) {
      const payload = JSON.stringify({ session_id: `fp${n}`, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `t${n}` });
      const r = await hookViaSocket(['--agent', 'claude-code'], payload, false, sandbox.env);
      expect(r.exitCode, command.trim().slice(0, 60)).toBe(0);
      if (denied) expect(JSON.parse(r.stdout).hookSpecificOutput, command.trim().slice(0, 60)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: 'force pushes are not allowed here' });
      else expect(r.stdout, command.trim().slice(0, 60)).toBe('');
      const [marker] = readMarkers(join(sessionDir(sandbox.dataDir, `fp${n}`), 'markers.jsonl')).markers;
      expect(marker!.command).toBe(command.slice(0, 2000));
      n++;
    }
  }, 120_000);
});
