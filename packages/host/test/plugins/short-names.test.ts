import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Interfaces } from '@oclif/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pluginPackageName } from '../../src/plugins/plugin-names.js';
import { REPO_ROOT, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';

// Every `cordon plugins` subcommand that takes a plugin name reads a first-party short name
// (`charts`, `claude`) as its package (`@cordon/charts`), as `plugins install` does
// (plugins/plugin-names.ts). Built CLI.

let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-plugin-names-')));
afterEach(() => box.cleanup());

/** The names `cordon plugins --json` lists as linked. */
async function linked(): Promise<string[]> {
  const r = await runCordon(['plugins', '--json'], { env: box.env });
  expect(r.exitCode, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Array<{ name: string; type: string }>).filter((p) => p.type === 'link').map((p) => p.name).sort();
}

describe('plugins subcommands read short names', () => {
  it('uninstall, unlink and remove take the short name plugins install takes', async () => {
    for (const verb of ['uninstall', 'unlink', 'remove']) {
      linkPlugins(box.dataDir, ['charts', 'otlp']);
      expect(await linked()).toEqual(['@cordon/charts', '@cordon/otlp']);
      const r = await runCordon(['plugins', verb, 'charts'], { env: box.env });
      expect([verb, r.exitCode, r.stderr]).toEqual([verb, 0, expect.not.stringContaining('Error')]);
      expect(await linked()).toEqual(['@cordon/otlp']);
    }
    // An alias of another spelling (claude for @cordon/claude-code) too, several at once.
    linkPlugins(box.dataDir, ['claude-code', 'charts', 'otlp']);
    const r = await runCordon(['plugins', 'uninstall', 'claude', 'otlp'], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await linked()).toEqual(['@cordon/charts']);
  });

  it('a short name of a plugin that is not installed is refused naming its package (exit 2)', async () => {
    linkPlugins(box.dataDir, ['otlp']);
    const r = await runCordon(['plugins', 'uninstall', 'charts'], { env: box.env });
    expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 2, stderr: expect.stringContaining('no installed plugin is called "@cordon/charts"') });
    expect(await linked()).toEqual(['@cordon/otlp']);
  });

  it('install of a plugin linked here says it is linked, from where, and how to switch; nothing is fetched or changed (exit 0)', async () => {
    linkPlugins(box.dataDir, ['codex', 'gemini']);
    const said = (name: string) => `${name} is already linked from ${join(REPO_ROOT, 'plugins', name.slice('@cordon/'.length))}: nothing to do. To use the registry's version instead, unlink it first: \`cordon plugins unlink ${name}\`, then \`cordon plugins install ${name}\``;
    for (const spelled of ['@cordon/codex', 'codex', '@cordon/codex@latest']) {
      const r = await runCordon(['plugins', 'install', spelled], { env: box.env });
      expect([spelled, r.exitCode, r.stdout.trim(), r.stderr]).toEqual([spelled, 0, said('@cordon/codex'), expect.not.stringContaining('link /')]);
    }
    const json = await runCordon(['plugins', 'install', 'codex', 'gemini', '--json'], { env: box.env });
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ already_linked: ['codex', 'gemini'].map((n) => ({ name: `@cordon/${n}`, root: join(REPO_ROOT, 'plugins', n) })) });
    // Beside a plugin that is not linked, that one is still tried; the linked one stays linked.
    const mixed = await runCordon(['plugins', 'install', 'codex', 'cordon-no-such-plugin-x'], { env: box.env, timeoutMs: 120_000 });
    expect(mixed.stdout).toContain(said('@cordon/codex'));
    expect(mixed.stderr).toContain('cordon-no-such-plugin-x');
    expect(await linked()).toEqual(['@cordon/codex', '@cordon/gemini']);
  }, 180_000);

  it('inspect takes the same short names', async () => {
    linkPlugins(box.dataDir, ['claude-code']);
    for (const name of ['claude-code', 'claude']) {
      const r = await runCordon(['plugins', 'inspect', name, '--json'], { env: box.env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as Array<{ name: string }>).map((p) => p.name)).toEqual(['@cordon/claude-code']);
    }
  });
});

describe('a short name with a version or tag', () => {
  it('names the same package with that version: inspect finds the installed plugin, or names the version installed', async () => {
    linkPlugins(box.dataDir, ['codex']);
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'plugins', 'codex', 'package.json'), 'utf8')) as { version: string }).version;
    for (const name of [`codex@${version}`, `@cordon/codex@${version}`]) {
      const r = await runCordon(['plugins', 'inspect', name, '--json'], { env: box.env });
      expect([name, r.exitCode, r.stderr]).toEqual([name, 0, '']);
      expect((JSON.parse(r.stdout) as Array<{ name: string }>).map((p) => p.name)).toEqual(['@cordon/codex']);
    }
    const other = await runCordon(['plugins', 'inspect', 'codex@99.0.0'], { env: box.env });
    expect([other.exitCode, other.stdout, other.stderr]).toEqual([2, '', `    Error: @cordon/codex@99.0.0: the installed @cordon/codex is version ${version}; inspect it as @cordon/codex\n    Code: CORDON_BAD_INPUT\n`]);
  });

  it('uninstall removes the package the short name with a version names', async () => {
    linkPlugins(box.dataDir, ['charts', 'otlp']);
    const r = await runCordon(['plugins', 'uninstall', 'charts@0.1.0'], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(await linked()).toEqual(['@cordon/otlp']);
  });
});

describe('pluginPackageName', () => {
  it('keeps the version of a short name and leaves every other spelling as given', () => {
    const config = { pjson: { oclif: { aliases: { codex: '@cordon/codex', claude: '@cordon/claude-code', blocked: null } } } } as unknown as Interfaces.Config;
    const cases: Array<[string, string]> = [
      ['codex', '@cordon/codex'],
      ['codex@0.1.0', '@cordon/codex@0.1.0'],
      ['claude@latest', '@cordon/claude-code@latest'],
      ['@cordon/codex@0.1.0', '@cordon/codex@0.1.0'],
      ['codex@', 'codex@'],
      ['blocked@1', 'blocked@1'],
      ['other@1.0.0', 'other@1.0.0'],
      ['./plugins/codex', './plugins/codex'],
    ];
    expect(cases.map(([name]) => [name, pluginPackageName(name, config)])).toEqual(cases);
  });
});
