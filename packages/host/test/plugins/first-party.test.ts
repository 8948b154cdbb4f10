import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/support/cli.js';
import { pathToFileURL } from 'node:url';
import { FIRST_PARTY_ENTRIES, firstPartyPlugins } from '../../src/plugins/first-party.js';
import { Registry } from '../../src/bus/registry.js';
import { CordonHost } from '../../src/bus/host.js';

describe('the first-party plugin list', () => {
  it('is every package under plugins/, read from the host’s aliases (one list, not a copy)', () => {
    const packages = readdirSync(join(REPO_ROOT, 'plugins'))
      .map((dir) => (JSON.parse(readFileSync(join(REPO_ROOT, 'plugins', dir, 'package.json'), 'utf8')) as { name: string }).name)
      .map((name) => name.replace(/^@cordon\//, ''))
      .sort();
    expect(firstPartyPlugins()).toEqual(packages);
    expect(firstPartyPlugins(join(REPO_ROOT, 'no-such-dir'))).toEqual([]);
  });

  it('is what a missing registry entry tells the user to install', () => {
    const registry = new Registry<{ name: string }>('runners', 'headless agent runner');
    // Only the plugins that come with a runner: none of charts, otlp, cgroup-linux … has one.
    expect(() => registry.require('zzzz-not-close')).toThrow(`first-party ones that do: claude-code, codex, gemini; this cordon runs from a checkout, which links them: \`cordon plugins link ${join(REPO_ROOT, 'plugins', '<name>')} --no-install\`)`);
    // A registry no first-party plugin fills names them all.
    expect(() => new Registry<{ name: string }>('widgets', 'widget').require('zzzz-not-close')).toThrow(`first-party: ${firstPartyPlugins().join(', ')}; this cordon`);
  });

  it('a missing entry a first-party plugin registers names that plugin, even beside an installed name close to it', () => {
    const registry = new Registry<{ name: string }>('samplers', 'process-tree sampler');
    registry.add({ name: 'windows-ntqsx' }, 'someone');
    expect(() => registry.require('windows-ntqsi')).toThrow(`no process-tree sampler named "windows-ntqsi" is installed (installed: windows-ntqsx); it comes with the @cordon/sampler-windows plugin: \`cordon plugins link ${join(REPO_ROOT, 'plugins', 'sampler-windows')} --no-install\``);
    expect(() => registry.require('windows-ntqsy')).toThrow('did you mean "windows-ntqsx"?');
  });

  it('FIRST_PARTY_ENTRIES is what the built plugins register (dialects, runners, samplers, exporters, charts)', async () => {
    const registered: Record<string, Record<string, string>> = {};
    for (const dir of readdirSync(join(REPO_ROOT, 'plugins')).sort()) {
      const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'plugins', dir, 'package.json'), 'utf8')) as { name: string; oclif: { hooks: Record<string, { target: string; identifier: string }> } };
      const hook = pkg.oclif.hooks['cordon:register']!;
      const module = (await import(pathToFileURL(join(REPO_ROOT, 'plugins', dir, hook.target)).href)) as Record<string, () => Promise<unknown>>;
      const host = new CordonHost({ dataDir: '/nonexistent/data', configDir: '/nonexistent/config', cacheDir: '/nonexistent/cache' } as never, '0.0.0');
      await host.applyPlugins([{ source: pkg.name, descriptor: await module[hook.identifier]!() } as never]);
      expect(host.failures, dir).toEqual([]);
      for (const kind of Object.keys(FIRST_PARTY_ENTRIES)) {
        const registry = (host as unknown as Record<string, Registry<{ name: string }>>)[kind]!;
        // The host registers its own Linux sampler under "cordon"; only the plugin's entries count.
        for (const { entry, plugin } of registry.list()) if (plugin !== 'cordon') (registered[kind] ??= {})[entry.name] = pkg.name.replace(/^@cordon\//, '');
      }
    }
    expect(registered).toEqual(FIRST_PARTY_ENTRIES);
  });
});
