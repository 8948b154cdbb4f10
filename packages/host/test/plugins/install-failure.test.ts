import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
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

    for (const spec of ['@cordon/codex', '@cordon/codex@0.2.0', 'cordon-no-such-plugin', `file:${join(box.root, 'missing.tgz')}`]) {
      const failed = await runCordon(['plugins', 'install', spec], { env: env(), timeoutMs: 120_000 });
      expect([spec, failed.exitCode === 0]).toEqual([spec, false]);
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
});
