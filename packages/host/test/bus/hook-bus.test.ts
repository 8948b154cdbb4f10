import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { definePlugin, PLUGIN_API_VERSION, STAGE, type CordonApi, type CordonPlugin, type GuardRequest, type ToolCall, type ToolResult } from '@cordon/plugin-api';
import { CordonHost, CordonPluginError, ERROR_CODES } from '../../src/index.js';

let dir: string;
let host: CordonHost;

const call = (command: string): ToolCall => ({
  agent: 'claude-code',
  sessionId: 's1',
  callKey: 'k1',
  callKeySource: 'agent',
  toolName: 'Bash',
  canonicalTool: 'shell',
  toolInput: { command },
  command,
  nativeEvent: 'PreToolUse',
  raw: {},
});

const plugin = (name: string, apply: (api: CordonApi) => void): CordonPlugin => ({ name, apply });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-bus-'));
  host = new CordonHost({ dataDir: dir, configDir: dir, cacheDir: dir }, '0.0.0-test');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('hook table', () => {
  it('is frozen and typed with the named tapable classes', () => {
    expect(Object.isFrozen(host.hooks)).toBe(true);
    expect(Object.keys(host.hooks).sort()).toEqual(['afterToolCall', 'audit', 'beforeToolCall', 'compact', 'enforce']);
    expect(host.hooks.beforeToolCall.constructor.name).toBe('AsyncSeriesBailHook');
    expect(host.hooks.afterToolCall.constructor.name).toBe('AsyncSeriesWaterfallHook');
    expect(host.hooks.audit.constructor.name).toBe('AsyncSeriesHook');
    expect(host.hooks.compact.constructor.name).toBe('AsyncSeriesWaterfallHook');
    expect(host.hooks.enforce.constructor.name).toBe('AsyncSeriesBailHook');
  });
});

describe('plugin facades', () => {
  it('expose tap methods but nothing that fires or intercepts', async () => {
    let seen: CordonApi | undefined;
    await host.applyPlugins([{ source: 't', descriptor: plugin('t', (api) => (seen = api)) }]);
    const facade = seen!.hooks.beforeToolCall as unknown as Record<string, unknown>;
    expect(typeof facade.tap).toBe('function');
    expect(typeof facade.tapPromise).toBe('function');
    expect(typeof facade.tapAsync).toBe('function');
    for (const forbidden of ['call', 'callAsync', 'promise', 'intercept', 'withOptions']) expect(facade[forbidden]).toBeUndefined();
    expect(Object.isFrozen(seen!.dialects)).toBe(true);
    expect((seen!.dialects as unknown as Record<string, unknown>).get).toBeUndefined();
  });

  it('refuse raw stage numbers that are not STAGE constants', async () => {
    await host.applyPlugins([{ source: 'raw', descriptor: plugin('raw', (api) => api.hooks.audit.tap({ name: 'x', stage: 5 }, () => undefined)) }]);
    expect(host.applied).toEqual([]);
    expect(host.failures[0]!.plugin).toBe('raw');
    expect(host.failures[0]!.message).toMatch(/stage 5; use a STAGE constant/);
  });
});

describe('ordering and semantics', () => {
  it('applies plugins sorted by name whatever order they were collected in', async () => {
    const order: string[] = [];
    const mk = (n: string) => ({ source: n, descriptor: plugin(n, () => void order.push(n)) });
    await host.applyPlugins([mk('zeta'), mk('alpha'), mk('mid')]);
    expect(order).toEqual(['alpha', 'mid', 'zeta']);
    expect(host.applied).toEqual(['alpha', 'mid', 'zeta']);
  });

  it('bail hook: taps run by STAGE, the first decision wins and later taps do not run', async () => {
    const ran: string[] = [];
    await host.applyPlugins([
      { source: 'a', descriptor: plugin('a', (api) => api.hooks.beforeToolCall.tap({ name: 'report', stage: STAGE.REPORT }, () => void ran.push('report'))) },
      { source: 'b', descriptor: plugin('b', (api) => api.hooks.beforeToolCall.tapPromise({ name: 'policy', stage: STAGE.POLICY }, async (c) => {
        ran.push('policy');
        return c.command?.includes('rm') ? { kind: 'deny', reason: 'no rm', by: 'b' } : undefined;
      })) },
      { source: 'c', descriptor: plugin('c', (api) => api.hooks.beforeToolCall.tap({ name: 'guard', stage: STAGE.GUARD }, () => void ran.push('guard'))) },
    ]);
    expect(await host.hooks.beforeToolCall.promise(call('rm -rf /'))).toEqual({ kind: 'deny', reason: 'no rm', by: 'b' });
    expect(ran).toEqual(['guard', 'policy']);
    ran.length = 0;
    expect(await host.hooks.beforeToolCall.promise(call('ls'))).toBeUndefined();
    expect(ran).toEqual(['guard', 'policy', 'report']);
  });

  it('waterfall hook: each tap sees the previous result; undefined keeps it', async () => {
    await host.applyPlugins([
      { source: 'one', descriptor: plugin('one', (api) => api.hooks.afterToolCall.tap({ name: 'one', stage: STAGE.DEFAULT }, (r) => ({ ...r, annotations: { ...r.annotations, one: 1 } }))) },
      // @ts-expect-error a tap written in JavaScript may return nothing: the result so far is kept
      { source: 'two', descriptor: plugin('two', (api) => api.hooks.afterToolCall.tap({ name: 'two', stage: STAGE.OBSERVE }, () => undefined)) },
      { source: 'three', descriptor: plugin('three', (api) => api.hooks.afterToolCall.tapAsync({ name: 'three', stage: STAGE.REPORT }, (r, done) => done(null, { ...r, annotations: { ...r.annotations, three: 3 } }))) },
    ]);
    const result: ToolResult = { call: call('ls'), status: 'ok' };
    expect((await host.hooks.afterToolCall.promise(result)).annotations).toEqual({ one: 1, three: 3 });
  });
});

describe('errors at the hook boundary', () => {
  it.each(['tap', 'tapPromise', 'tapAsync'] as const)('a %s tap that throws surfaces as CordonPluginError naming plugin and hook', async (method) => {
    const boom = Object.assign(new Error('boom'), { code: 'E_PROBE' });
    await host.applyPlugins([{ source: 'bad', descriptor: plugin('bad', (api) => {
      const facade = api.hooks.audit as unknown as Record<string, (o: object, f: unknown) => void>;
      if (method === 'tap') facade.tap!({ name: 'x' }, () => { throw boom; });
      if (method === 'tapPromise') facade.tapPromise!({ name: 'x' }, async () => { throw boom; });
      if (method === 'tapAsync') facade.tapAsync!({ name: 'x' }, (_c: unknown, done: (e: unknown) => void) => done(boom));
    }) }]);
    const error = await host.hooks.audit.promise({ repoRoot: '/', baseline: 'x', changedPaths: [], metrics: {}, violations: [] }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(CordonPluginError);
    expect(error).toMatchObject({ plugin: 'bad', hook: 'audit', code: ERROR_CODES.PLUGIN_ERROR, pluginCode: 'E_PROBE', cause: boom });
    expect((error as Error).message).toBe('plugin "bad" failed in hook "audit": boom');
  });

  it('a plugin whose apply throws is recorded and the others still apply', async () => {
    await host.applyPlugins([
      { source: 'ok', descriptor: plugin('ok', (api) => api.dialects.register({ name: 'ok-agent', load: async () => { throw new Error('unused'); } })) },
      { source: 'broken', descriptor: plugin('broken', () => { throw new Error('cannot start'); }) },
      { source: '@x/junk', descriptor: { nope: true } },
      { source: '@x/crashed', error: new Error('module not found') },
    ]);
    expect(host.applied).toEqual(['ok']);
    expect(host.failures.map((f) => [f.plugin, f.hook])).toEqual([['@x/junk', 'register'], ['@x/crashed', 'register'], ['broken', 'register']]);
    expect(host.dialects.get('ok-agent')).toBeDefined();
  });

  it('two plugins registering one name is an error naming both', async () => {
    const reg = (n: string) => ({ source: n, descriptor: plugin(n, (api) => api.runners.register({ name: 'claude-code', load: async () => Promise.reject(new Error('not loaded by this test')) })) });
    await host.applyPlugins([reg('first'), reg('second')]);
    expect(host.failures[0]!.message).toMatch(/runners: "claude-code" is registered by plugin "first" already; plugin "second"/);
    expect(() => host.runners.require('gemini')).toThrow(/no headless agent runner named "gemini" is installed \(installed: claude-code\)/);
  });
});

describe('timing interceptor', () => {
  it('logs plugin, hook and duration of each tap at debug level', async () => {
    process.env.CORDON_LOG_LEVEL = 'debug';
    try {
      host = new CordonHost({ dataDir: dir, configDir: dir, cacheDir: dir }, '0.0.0-test');
      await host.applyPlugins([{ source: 'p', descriptor: plugin('p', (api) => api.hooks.enforce.tap({ name: 'answer' }, () => undefined)) }]);
      // The tap answers at once, whatever the request holds: a partial one is enough here.
      await host.hooks.enforce.promise({ argv: ['true'], cwd: '/' } as unknown as GuardRequest);
      const { readFileSync } = await import('node:fs');
      const lines = readFileSync(join(dir, 'logs', 'cordon.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.find((l) => l.message === 'tap')).toMatchObject({ hook: 'enforce', plugin: 'p', tap: 'answer', failed: false });
    } finally {
      delete process.env.CORDON_LOG_LEVEL;
    }
  });
});

describe('plugin API version', () => {
  it('definePlugin stamps PLUGIN_API_VERSION; a descriptor built for another version is refused by name, the rest apply', async () => {
    const current = definePlugin({ name: 'current', apply: () => undefined });
    expect(current.apiVersion).toBe(PLUGIN_API_VERSION);
    await host.applyPlugins([
      { source: '@acme/cordon-future', descriptor: { name: 'future', apiVersion: PLUGIN_API_VERSION + 1, apply: () => undefined } },
      { source: '@acme/cordon-now', descriptor: current },
      { source: '@acme/cordon-legacy', descriptor: plugin('legacy', () => undefined) },
    ]);
    expect(host.applied).toEqual(['current', 'legacy']);
    expect(host.failures).toHaveLength(1);
    const failure = host.failures[0]!;
    expect(failure.plugin).toBe('future');
    expect(failure.pluginCode).toBe(ERROR_CODES.PLUGIN_INCOMPATIBLE);
    expect(failure.message).toContain(`plugin API version ${PLUGIN_API_VERSION + 1}`);
    expect(failure.message).toContain('@acme/cordon-future');
  });
});
