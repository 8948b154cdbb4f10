import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { installSpecProblem } from '../../src/plugins/install-spec.js';

// A hostile-input probe: `cordon plugins inspect 'a b'` printed oclif's `Error: a b not installed`
// (exit 1, no Code line); `cordon plugins install UPPER` said `Invalid npm package name.` without
// naming the input (CORDON_PLUGIN_INSTALL); `plugins install ../evil` was taken for GitHub's
// owner/repo and printed npm's network errors for https://github.com/../evil. Each is now
// cordon's CORDON_BAD_INPUT (exit 2) naming the input, before npm runs. Built CLI.

let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-plugins-input-')));
afterEach(() => box.cleanup());

// npm offline and its registry a closed port: had the refusal not come first, npm fails at once
// instead of waiting on the network.
const env = () => ({
  ...box.env,
  npm_config_offline: 'true',
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_fetch_retries: '0',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
});

const TAKES = '`cordon plugins install` takes an npm package name (`@cordon/codex`, or a short name such as `codex`), a GitHub repository as owner/repo, or a git or `file:` URL';

/** Asserts `args` is refused with exactly `message` as CORDON_BAD_INPUT, exit 2, as text and under --json. */
async function expectRefusal(args: string[], message: string): Promise<void> {
  const r = await runCordon(args, { env: env(), timeoutMs: 60_000 });
  expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({ exitCode: 2, stdout: '', stderr: `    Error: ${message}\n    Code: CORDON_BAD_INPUT\n` });
  const json = await runCordon([...args, '--json'], { env: env(), timeoutMs: 60_000 });
  expect(json.exitCode).toBe(2);
  expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', message });
}

describe('cordon plugins inspect and install name the input they refuse', () => {
  it('inspect of a name with a blank (or none at all): no installed plugin is called "a b", exit 2', async () => {
    await expectRefusal(['plugins', 'inspect', 'a b'], 'no installed plugin is called "a b"; `cordon plugins` lists them');
    await expectRefusal(['plugins', 'inspect', ''], 'no installed plugin is called ""; `cordon plugins` lists them');
  });

  it('uninstall (and its aliases) of a name with a blank or an escape names it quoted, exit 2', async () => {
    // oclif's own words were `a b is not installed`, the name unquoted.
    // Text only: uninstall has no --json.
    const refused = async (args: string[], message: string) => {
      const r = await runCordon(args, { env: env(), timeoutMs: 60_000 });
      expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({ exitCode: 2, stdout: '', stderr: `    Error: ${message}\n    Code: CORDON_BAD_INPUT\n` });
    };
    for (const command of ['uninstall', 'unlink', 'remove']) await refused(['plugins', command, 'a b'], 'no installed plugin is called "a b"; `cordon plugins` lists them');
    await refused(['plugins', 'uninstall', 'x\u001b[31m'], 'no installed plugin is called "x\\u001b[31m"; `cordon plugins` lists them');
  });

  it('install of a name npm refuses says which and why, exit 2, and nothing is written', async () => {
    linkPlugins(box.dataDir, ['aider']);
    const pjson = join(box.dataDir, 'package.json');
    const before = readFileSync(pjson, 'utf8');
    await expectRefusal(['plugins', 'install', 'UPPER'], `"UPPER" is not a valid npm package name (name can no longer contain capital letters): ${TAKES}`);
    await expectRefusal(['plugins', 'install', 'a b'], `"a b" is not a valid npm package name (name can only contain URL-friendly characters): ${TAKES}`);
    await expectRefusal(['plugins', 'install', '@cordon/Codex@0.1.0'], `"@cordon/Codex" (in "@cordon/Codex@0.1.0") is not a valid npm package name (name can no longer contain capital letters): ${TAKES}`);
    // Refused before any of the names is installed: a good name given with it is not fetched either.
    await expectRefusal(['plugins', 'install', 'codex', 'UPPER'], `"UPPER" is not a valid npm package name (name can no longer contain capital letters): ${TAKES}`);
    expect(readFileSync(pjson, 'utf8')).toBe(before);
    expect(existsSync(join(box.dataDir, 'node_modules'))).toBe(false);
  });

  it('install of a local path points to plugins link, instead of fetching https://github.com/../evil', async () => {
    for (const path of ['../evil', './x', '/abs/plugin', '.']) {
      await expectRefusal(['plugins', 'install', path], `"${path}" is a local path: for a plugin in a local directory use \`cordon plugins link ${path}\` (${TAKES})`);
    }
    await expectRefusal(['plugins', 'install', './my plugin'], `"./my plugin" is a local path: for a plugin in a local directory use \`cordon plugins link './my plugin'\` (${TAKES})`);
    expect(existsSync(join(box.dataDir, 'node_modules'))).toBe(false);
  });
});

describe('cordon plugins install of a packed plugin by path', () => {
  it('installs file:./x.tgz from the directory it is run in, and names a relative file: spec or a tarball path it cannot take', async () => {
    // npm runs in the data directory: `file:./good.tgz` named a file there and failed with npm's
    // `exited with code 254`; a missing one the same; and `./good.tgz` was told to use
    // `cordon plugins link ./good.tgz`, which takes a directory.
    const dir = box.dir('packed');
    const plugin = join(dir, 'src');
    mkdirSync(plugin);
    writeFileSync(join(plugin, 'package.json'), JSON.stringify({ name: 'packed-plugin', version: '1.2.3', oclif: { hooks: {} } }));
    execFileSync('tar', ['czf', join(dir, 'packed.tgz'), '-C', dir, 'src']);
    const installed = await runCordon(['plugins', 'install', 'file:./packed.tgz'], { env: env(), cwd: dir, timeoutMs: 120_000 });
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(readFileSync(join(box.dataDir, 'node_modules', 'packed-plugin', 'package.json'), 'utf8')).toContain('"version":"1.2.3"');
    const missing = async (spec: string, path: string) => {
      const r = await runCordon(['plugins', 'install', spec], { env: env(), cwd: dir, timeoutMs: 60_000 });
      expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({ exitCode: 2, stdout: '', stderr: `    Error: ${JSON.stringify(spec)}: nothing at ${path}; \`cordon plugins install file:PATH\` takes a packed plugin (npm pack) or a plugin package's directory\n    Code: CORDON_BAD_INPUT\n` });
    };
    await missing('file:./nope.tgz', join(dir, 'nope.tgz'));
    await missing('file:../elsewhere/x.tgz', join(dir, '..', 'elsewhere', 'x.tgz'));
    await missing(`file:${join(dir, 'gone.tgz')}`, join(dir, 'gone.tgz'));
    for (const path of ['./packed.tgz', 'packed.tgz'.replace(/^/, `${dir}/`)]) {
      const r = await runCordon(['plugins', 'install', path], { env: env(), cwd: dir, timeoutMs: 60_000 });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toBe(`    Error: ${JSON.stringify(path)} is a local path: for a packed plugin use \`cordon plugins install file:${join(dir, 'packed.tgz')}\` (${TAKES})\n    Code: CORDON_BAD_INPUT\n`);
    }
  }, 180_000);
});

describe('installSpecProblem', () => {
  it("passes every form oclif's installer takes, and refuses paths and names npm refuses", () => {
    const passed = ['@cordon/codex', '@cordon/codex@0.1.0', '@cordon/codex@latest', 'plain', 'plain@1.2.3', 'owner/repo', 'https://github.com/a/b', 'git+ssh://git@github.com/a/b.git', 'file:/x/p.tgz', 'file:../p.tgz', 'a-b.c_d'];
    expect(passed.filter((w) => installSpecProblem(w) !== undefined)).toEqual([]);
    const paths = ['..', '../x', './x', '/x', '~', '~/x', 'C:\\x', 'C:/x', 'dir\\x'];
    expect(paths.map((w) => installSpecProblem(w)?.details)).toEqual(paths.map((w) => ({ plugin: w, reason: 'local-path' })));
    const names = ['UPPER', 'a b', '', '.hidden', '_under', 'node_modules', 'http', '@x', 'x'.repeat(215), 'a(b)'];
    for (const w of names) expect([w, installSpecProblem(w)?.code, installSpecProblem(w)?.exit]).toEqual([w, 'CORDON_BAD_INPUT', 2]);
  });
});
