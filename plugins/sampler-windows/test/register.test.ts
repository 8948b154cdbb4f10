import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CordonHost } from '../../../packages/host/src/bus/host.js';
import { pickSampler } from '../../../packages/host/src/telemetry/sampler/builtin.js';
import { register } from '../src/index.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('@cordon/sampler-windows registration', () => {
  it('registers the win32 sampler in the real host, beside the built-in Linux one', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-sampler-windows-'));
    const host = new CordonHost({ dataDir: dir, configDir: dir, cacheDir: dir }, '0.0.0-test');
    await host.applyPlugins([{ source: '@cordon/sampler-windows', descriptor: await register() }]);
    expect(host.failures).toEqual([]);
    expect(pickSampler(host.samplers, 'win32', undefined)?.name).toBe('windows-ntqsi');
    expect(pickSampler(host.samplers, 'linux', undefined)?.name).toBe('linux-proc');
    expect(pickSampler(host.samplers, 'linux', 'windows-ntqsi')?.platforms).toEqual(['win32']);
  });

  it('imports plugin-api for types only, no host module, and koffi only inside the lazily loaded nt.ts', () => {
    const src = join(import.meta.dirname, '../src');
    for (const name of readdirSync(src)) {
      const text = readFileSync(join(src, name), 'utf8');
      expect(text, name).not.toMatch(/@cordon\/host|packages\/host/);
      for (const m of text.matchAll(/^import\s+(type\s+)?[^'"]*from\s+'([^']+)'/gm)) {
        if (m[2] === '@cordon/plugin-api') expect(m[1], `${name} must import @cordon/plugin-api with import type`).toBeTruthy();
      }
      if (name !== 'nt.ts') expect(text, name).not.toMatch(/koffi'\)/);
    }
  });
});
