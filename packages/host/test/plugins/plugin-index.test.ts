import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, linkPluginRoots, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { loadHostDirect } from '../../src/bus/load-host.js';
import type { PluginIndex } from '../../src/plugins/plugin-index.js';

// The plugin index lets `cordon hook --agent X` load only the package registering dialect X and
// the packages tapping the hooks the hot path fires (docs/ARCHITECTURE.md "The hot paths"), learnt from a full
// load and invalidated when the plugin set or a registration module changes.

let sandbox: Sandbox;

/** A plugin package in the sandbox: registers dialect `dialect` (if given) and taps `hook` (if given). */
function plugin(name: string, options: { dialect?: string; hook?: string; throws?: boolean }): { name: string; root: string } {
  const root = sandbox.dir(`plugin-${name}`);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name, version: '0.0.0', type: 'module', oclif: { hooks: { 'cordon:register': { target: './index.js', identifier: 'register' } } } }));
  const lines = [
    options.throws ? `throw new Error('apply of ${name} failed');` : '',
    options.dialect ? `api.dialects.register({ name: ${JSON.stringify(options.dialect)}, load: async () => { throw new Error('not used'); } });` : '',
    options.hook ? `api.hooks.${options.hook}.tap(${JSON.stringify(`${name}-tap`)}, () => undefined);` : '',
  ];
  writeFileSync(join(root, 'index.js'), `export async function register() { return { name: ${JSON.stringify(name)}, apply(api) { ${lines.join(' ')} } }; }\n`);
  return { name, root };
}

const indexFile = (): string => join(sandbox.cacheDir, 'plugin-index.json');
const readIndex = (): PluginIndex => JSON.parse(readFileSync(indexFile(), 'utf8')) as PluginIndex;

beforeEach(() => {
  sandbox = makeSandbox('cordon-plugin-index-');
});
afterEach(() => sandbox.cleanup());

describe('plugin index', () => {
  it('a full load writes what each package registered and tapped', async () => {
    linkPluginRoots(sandbox.dataDir, [plugin('p-alpha', { dialect: 'alpha' }), plugin('p-guard', { hook: 'beforeToolCall' }), plugin('p-audit', { hook: 'audit' })]);
    const host = await loadHostDirect(sandbox.env);
    expect(host.applied).toEqual(['p-alpha', 'p-audit', 'p-guard']);
    expect(readIndex().packages).toEqual([
      { name: 'p-alpha', dialects: ['alpha'], samplers: [], taps: [], failed: false },
      { name: 'p-guard', dialects: [], samplers: [], taps: ['beforeToolCall'], failed: false },
      { name: 'p-audit', dialects: [], samplers: [], taps: ['audit'], failed: false },
    ]);
  });

  it('with a current index, --agent loads the dialect package, the hot-hook tappers and past failures only', async () => {
    linkPluginRoots(sandbox.dataDir, [
      plugin('p-alpha', { dialect: 'alpha' }),
      plugin('p-beta', { dialect: 'beta' }),
      plugin('p-after', { hook: 'afterToolCall' }),
      plugin('p-audit', { hook: 'audit' }),
      plugin('p-broken', { throws: true }),
    ]);
    await loadHostDirect(sandbox.env); // learns
    const host = await loadHostDirect(sandbox.env, { agent: 'alpha' });
    expect(host.applied).toEqual(['p-after', 'p-alpha']);
    expect(host.failures.map((f) => f.plugin)).toEqual(['p-broken']);
    expect(host.dialects.get('alpha')).toBeDefined();
    expect(host.dialects.get('beta')).toBeUndefined();
  });

  it('without an index, or for an agent no package registers, everything is loaded', async () => {
    linkPluginRoots(sandbox.dataDir, [plugin('p-alpha', { dialect: 'alpha' }), plugin('p-beta', { dialect: 'beta' })]);
    expect((await loadHostDirect(sandbox.env, { agent: 'alpha' })).applied).toEqual(['p-alpha', 'p-beta']);
    expect(existsSync(indexFile())).toBe(true);
    expect((await loadHostDirect(sandbox.env, { agent: 'gamma' })).applied).toEqual(['p-alpha', 'p-beta']);
  });

  it('a changed registration module, or a newly linked package, invalidates the index', async () => {
    const alpha = plugin('p-alpha', { dialect: 'alpha' });
    const beta = plugin('p-beta', { dialect: 'beta' });
    linkPluginRoots(sandbox.dataDir, [alpha, beta]);
    await loadHostDirect(sandbox.env);
    expect((await loadHostDirect(sandbox.env, { agent: 'alpha' })).applied).toEqual(['p-alpha']);
    // A rebuilt registration module (new mtime): the next call loads everything and relearns.
    utimesSync(join(beta.root, 'index.js'), new Date(), new Date(Date.now() + 5000));
    expect((await loadHostDirect(sandbox.env, { agent: 'alpha' })).applied).toEqual(['p-alpha', 'p-beta']);
    expect((await loadHostDirect(sandbox.env, { agent: 'alpha' })).applied).toEqual(['p-alpha']);
    // p-beta's new version also taps beforeToolCall (a new module file: this process caches modules
    // by path, a hook process is fresh on every call), so from now on it loads for every agent.
    writeFileSync(join(beta.root, 'index-v2.js'), "export async function register() { return { name: 'p-beta', apply(api) { api.hooks.beforeToolCall.tap('t', () => undefined); } }; }\n");
    writeFileSync(join(beta.root, 'package.json'), JSON.stringify({ name: 'p-beta', version: '0.0.1', type: 'module', oclif: { hooks: { 'cordon:register': { target: './index-v2.js', identifier: 'register' } } } }));
    expect((await loadHostDirect(sandbox.env, { agent: 'alpha' })).applied).toEqual(['p-alpha', 'p-beta']);
    expect((await loadHostDirect(sandbox.env, { agent: 'alpha' })).applied).toEqual(['p-alpha', 'p-beta']);
    linkPluginRoots(sandbox.dataDir, [alpha, beta, plugin('p-gamma', { dialect: 'gamma' })]);
    expect((await loadHostDirect(sandbox.env, { agent: 'alpha' })).applied).toEqual(['p-alpha', 'p-beta', 'p-gamma']);
    expect(readIndex().packages.map((p) => p.name)).toEqual(['p-alpha', 'p-beta', 'p-gamma']);
  });

  it('an index that names the wrong package (its key still matching) falls back to a full load and is rewritten', async () => {
    linkPluginRoots(sandbox.dataDir, [plugin('p-alpha', { dialect: 'alpha' }), plugin('p-beta', { dialect: 'beta' })]);
    await loadHostDirect(sandbox.env);
    const index = readIndex();
    writeFileSync(indexFile(), JSON.stringify({ ...index, packages: index.packages.map((p) => ({ ...p, dialects: p.name === 'p-beta' ? ['alpha'] : [] })) }));
    const host = await loadHostDirect(sandbox.env, { agent: 'alpha' });
    expect(host.applied).toEqual(['p-alpha', 'p-beta']);
    expect(host.dialects.get('alpha')).toBeDefined();
    expect(readIndex().packages.find((p) => p.name === 'p-alpha')!.dialects).toEqual(['alpha']);
  });

  it('an index with an entry of the wrong shape (its key still matching) falls back to a full load and is rewritten', async () => {
    linkPluginRoots(sandbox.dataDir, [plugin('p-alpha', { dialect: 'alpha' }), plugin('p-guard', { hook: 'beforeToolCall' })]);
    await loadHostDirect(sandbox.env);
    const good = readIndex();
    const first = good.packages[0]!;
    const shapes: unknown[] = [
      { ...first, taps: 'beforeToolCall' },
      { ...first, dialects: 'alpha' },
      { ...first, dialects: [5] },
      { ...first, samplers: { a: 1 } },
      { ...first, taps: [null] },
      { ...first, name: 7 },
      { ...first, failed: 'yes' },
      { name: first.name },
      null,
      5,
      [],
    ];
    for (const shape of shapes) {
      writeFileSync(indexFile(), JSON.stringify({ ...good, packages: [shape, ...good.packages.slice(1)] }));
      const host = await loadHostDirect(sandbox.env, { agent: 'alpha' });
      expect([shape, host.applied, host.failures]).toEqual([shape, ['p-alpha', 'p-guard'], []]);
      expect(readIndex()).toEqual(good);
    }
    // An index that is JSON but no object at all.
    writeFileSync(indexFile(), 'null');
    expect((await loadHostDirect(sandbox.env, { agent: 'alpha' })).applied).toEqual(['p-alpha', 'p-guard']);
  });

  it('CORDON_PLUGIN_INDEX=off loads everything and writes no index; a corrupt index is ignored', async () => {
    linkPluginRoots(sandbox.dataDir, [plugin('p-alpha', { dialect: 'alpha' }), plugin('p-beta', { dialect: 'beta' })]);
    const off = { ...sandbox.env, CORDON_PLUGIN_INDEX: 'off' };
    expect((await loadHostDirect(off, { agent: 'alpha' })).applied).toEqual(['p-alpha', 'p-beta']);
    expect(existsSync(indexFile())).toBe(false);
    writeFileSync(indexFile(), '{"v":1,"key":');
    expect((await loadHostDirect(sandbox.env, { agent: 'alpha' })).applied).toEqual(['p-alpha', 'p-beta']);
    expect(readIndex().v).toBe(2);
  });

  it('needs: only the packages tapping the given hooks, or registering samplers, are loaded', async () => {
    const sampler = sandbox.dir('plugin-p-sampler');
    writeFileSync(join(sampler, 'package.json'), JSON.stringify({ name: 'p-sampler', version: '0.0.0', type: 'module', oclif: { hooks: { 'cordon:register': { target: './index.js', identifier: 'register' } } } }));
    writeFileSync(join(sampler, 'index.js'), "export async function register() { return { name: 'p-sampler', apply(api) { api.samplers.register({ name: 'fake', platforms: ['aix'], load: async () => { throw new Error('not used'); } }); } }; }\n");
    linkPluginRoots(sandbox.dataDir, [plugin('p-alpha', { dialect: 'alpha' }), plugin('p-audit', { hook: 'audit' }), { name: 'p-sampler', root: sampler }]);
    await loadHostDirect(sandbox.env);
    expect(readIndex().packages.find((p) => p.name === 'p-sampler')!.samplers).toEqual(['fake']);
    expect((await loadHostDirect(sandbox.env, { needs: { hooks: ['audit'] } })).applied).toEqual(['p-audit']);
    const forSampler = await loadHostDirect(sandbox.env, { needs: { samplers: true } });
    expect(forSampler.applied).toEqual(['p-sampler']);
    expect(forSampler.samplers.list().map((r) => r.entry.name)).toEqual(['fake', 'linux-proc']);
  });

  it('the first-party dialect plugins: each agent loads only its own plugin', async () => {
    const agents = ['claude-code', 'codex', 'cursor', 'gemini', 'hermes'];
    linkPluginRoots(sandbox.dataDir, agents.map((a) => ({ name: `@cordon/${a}`, root: join(REPO_ROOT, 'plugins', a) })));
    await loadHostDirect(sandbox.env);
    for (const agent of agents) expect((await loadHostDirect(sandbox.env, { agent })).applied).toEqual([agent]);
  });
});
