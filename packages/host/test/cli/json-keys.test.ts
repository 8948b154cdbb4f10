import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { nonSnakeKeys } from '../../../../test/support/json-keys.js';

// Every cordon JSON output spells its keys in snake_case (docs/reference.md "JSON output"):
// `cordon info --json` said `dataDir` where `top --json` says `data_dir`. Built CLI, with
// plugins linked so that the maps of names (info's taps, keyed by hook name) are filled.

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox('cordon-json-keys-');
  linkPlugins(box.dataDir, ['claude-code', 'codex', 'cgroup-linux']);
});
afterEach(() => box.cleanup());

describe('JSON output keys', () => {
  it('are snake_case in info, top, doctor and reduce', async () => {
    for (const args of [['info', '--json'], ['top', '--json'], ['doctor', '--json'], ['reduce', '--json']]) {
      const r = await runCordon(args, { env: box.env });
      expect(r.stdout.trim(), `${args.join(' ')}: ${r.stderr}`).not.toBe('');
      expect([args.join(' '), nonSnakeKeys(JSON.parse(r.stdout))]).toEqual([args.join(' '), []]);
    }
  });

  it('info --json names the directories data_dir, config_dir, cache_dir', async () => {
    const r = await runCordon(['info', '--json'], { env: box.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).paths).toEqual({ data_dir: box.dataDir, config_dir: box.configDir, cache_dir: box.cacheDir });
  });
});
