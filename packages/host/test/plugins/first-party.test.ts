import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/support/cli.js';
import { firstPartyPlugins } from '../../src/plugins/first-party.js';
import { Registry } from '../../src/bus/registry.js';

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
    expect(() => registry.require('zzzz-not-close')).toThrow(`first-party: ${firstPartyPlugins().join(', ')})`);
  });
});
