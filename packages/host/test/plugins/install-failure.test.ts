import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, REPO_ROOT, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { packageNameOf } from '../../src/plugins/install-guard.js';

// Issue 12 item 9: a failed `cordon plugins install` leaves the plugin set as it was (a linked
// plugin of the same name survives). Real failing installs: a registry that refuses
// (a closed 127.0.0.1 port) and a `file:` tarball that does not exist.

let box: Sandbox;
beforeEach(() => (box = makeSandbox('cordon-plugins-install-')));
afterEach(() => box.cleanup());

const env = () => ({
  ...box.env,
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_fetch_retries: '0',
  npm_config_fetch_timeout: '5000',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
});

describe('cordon plugins install that fails', () => {
  it('keeps a linked plugin of the same name and every other entry, byte for byte', async () => {
    linkPlugins(box.dataDir, ['codex', 'aider']);
    const pjson = join(box.dataDir, 'package.json');
    const before = readFileSync(pjson, 'utf8');
    const listed = await runCordon(['plugins'], { env: env() });
    expect(listed.stdout).toContain('@cordon/codex');

    for (const spec of ['cordon-no-such-plugin', `file:${join(box.root, 'missing.tgz')}`]) {
      const failed = await runCordon(['plugins', 'install', spec], { env: env(), timeoutMs: 120_000 });
      expect([spec, failed.exitCode === 0]).toEqual([spec, false]);
      expect([spec, readFileSync(pjson, 'utf8')]).toEqual([spec, before]);
    }
    // The linked plugin's own name is not installed over: it is said to be linked (short-names.test.ts), nothing changes.
    for (const spec of ['@cordon/codex', '@cordon/codex@0.2.0']) {
      const linked = await runCordon(['plugins', 'install', spec], { env: env(), timeoutMs: 120_000 });
      expect([spec, linked.exitCode, linked.stdout]).toEqual([spec, 0, expect.stringContaining('@cordon/codex is already linked from')]);
      expect([spec, readFileSync(pjson, 'utf8')]).toEqual([spec, before]);
    }
    const after = await runCordon(['plugins'], { env: env() });
    expect(after.stdout).toBe(listed.stdout);
    // The linked plugin still works.
    const ids = await runCordon(['pcodx', 'init', '--session', 'still-here', '--db', join(box.root, 'l.sqlite3')], { env: env() });
    expect(ids.exitCode, ids.stderr).toBe(0);
  }, 300_000);

  it('names the npm package of an argument, and none for paths and URLs', () => {
    expect(['@cordon/codex', '@cordon/codex@0.2.0', 'plain', 'plain@latest', 'file:/x.tgz', './dir', 'https://github.com/a/b', 'a/b'].map(packageNameOf)).toEqual([
      '@cordon/codex',
      '@cordon/codex',
      'plain',
      'plain',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('a first-party plugin the registry does not hold: the error says how this checkout adds it', async () => {
    // A registry that answers every request with 404, as one without the package does.
    const server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"Not found"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const failed = await runCordon(['plugins', 'install', 'codex'], { env: { ...env(), npm_config_registry: registry }, timeoutMs: 120_000 });
      expect(failed.exitCode).not.toBe(0);
      const lines = failed.stderr.split('\n').filter((l) => l.startsWith('    '));
      expect(lines[0]).toMatch(/^ {4}Error: .*does not exist in the registry\. This cordon runs from a checkout; to add @cordon\/codex to this cordon: `cordon plugins link \S+\/plugins\/codex --no-install`$/);
      expect(lines[0]).toContain(join(REPO_ROOT, 'plugins/codex'));
      expect(lines[1]).toBe('    Code: CORDON_PLUGIN_INSTALL');
    } finally {
      server.close();
    }
  }, 180_000);

  it('a short name with a version asks the registry for the first-party package, never the bare name', async () => {
    // npm's unrelated `codex` is what oclif asked for when given `codex@0.1.0`.
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(decodeURIComponent(req.url ?? ''));
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"Not found"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const failed = await runCordon(['plugins', 'install', 'codex@0.1.0'], { env: { ...env(), npm_config_registry: registry }, timeoutMs: 120_000 });
      expect(failed.exitCode).not.toBe(0);
      expect(failed.stderr).toContain('to add @cordon/codex to this cordon');
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.filter((path) => !path.startsWith('/@cordon/codex'))).toEqual([]);
    } finally {
      server.close();
    }
  }, 180_000);
});

describe('cordon plugins link of a path that is no plugin package', () => {
  it('is refused before oclif links anything, naming the path (exit 2)', async () => {
    const pjson = join(box.dataDir, 'package.json');
    linkPlugins(box.dataDir, ['aider']);
    const before = readFileSync(pjson, 'utf8');
    const empty = join(box.root, 'empty-dir');
    mkdirSync(empty);
    const file = join(box.root, 'a-file');
    writeFileSync(file, 'x');
    const cases: Array<[string, RegExp]> = [
      [join(box.root, 'nowhere'), /^nothing at \S+nowhere: `plugins link` takes the directory of a plugin package, such as \S+\/plugins\/codex$/],
      [empty, /^\S+empty-dir holds no package\.json, so it is no plugin package: `plugins link` takes/],
      [file, /^\S+a-file is not a directory: `plugins link` takes/],
    ];
    for (const [path, message] of cases) {
      const r = await runCordon(['plugins', 'link', path, '--no-install'], { env: box.env });
      expect([path, r.exitCode]).toEqual([path, 2]);
      const [first, code] = r.stderr.split('\n');
      expect(first!.replace(/^ {4}Error: /, ''), path).toMatch(message);
      expect(code).toBe('    Code: CORDON_BAD_INPUT');
      expect(readFileSync(pjson, 'utf8')).toBe(before);
    }
  });

  it('names what is wrong with its package.json (not JSON, no object, no name, no oclif section), exit 2', async () => {
    // oclif's linker said `could not find package.json with { isRoot: true, … }`, `no name in
    // package.json` or `plugin is invalid`, and only after its progress line, which held the
    // message back: the run printed `Linking plugin ./x...` alone and exited 2.
    const pjson = join(box.dataDir, 'package.json');
    linkPlugins(box.dataDir, ['aider']);
    const before = readFileSync(pjson, 'utf8');
    const cases: Array<[string, string, string]> = [
      ['truncated', '{"name":', 'is not valid JSON: value expected at line 1, column 9'],
      ['null', 'null\n', 'does not hold a JSON object'],
      ['array', '[1,2]\n', 'does not hold a JSON object'],
      ['numeric-name', '{"name":42,"oclif":{"hooks":{}}}\n', 'has no package name (a string `name`)'],
      ['no-oclif', '{"name":"x-plugin","version":"1.0.0"}\n', 'has no `oclif` section (an object naming its commands or hooks)'],
      ['oclif-string', '{"name":"x-plugin","oclif":"x"}\n', 'has no `oclif` section (an object naming its commands or hooks)'],
    ];
    for (const [name, text, why] of cases) {
      const dir = join(box.root, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'package.json'), text);
      const r = await runCordon(['plugins', 'link', dir, '--no-install'], { env: box.env });
      expect({ name, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
        name,
        exitCode: 2,
        stdout: '',
        stderr: `    Error: ${join(dir, 'package.json')} ${why}, so ${dir} is no plugin package: \`plugins link\` takes the directory of a plugin package, such as ${join(REPO_ROOT, 'plugins/codex')}\n    Code: CORDON_BAD_INPUT\n`,
      });
      expect(readFileSync(pjson, 'utf8')).toBe(before);
    }
  });

  it('prints why when the link fails after it started (its npm install fails), instead of only its progress line', async () => {
    // oclif's progress line (`Linking plugin …...`) holds stderr back until it stops, and the
    // failed link never stopped it: the run printed that line alone.
    const dir = join(box.root, 'locked');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'locked-plugin', version: '1.0.0', dependencies: { 'cordon-no-such-dep': '1.0.0' }, oclif: { hooks: {} } }));
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ name: 'locked-plugin', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'locked-plugin', version: '1.0.0', dependencies: { 'cordon-no-such-dep': '1.0.0' } } } }));
    const r = await runCordon(['plugins', 'link', dir], { env: env(), timeoutMs: 120_000 });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/Linking plugin \S+locked\.\.\. failed\n {4}Error: .*npm.* install .*exited with code 1\n {4}Code: CORDON_PLUGIN_INSTALL\n$/);
    expect(existsSync(join(box.dataDir, 'package.json'))).toBe(false);
  }, 180_000);
});
