import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../test/support/cli.js';
import { MAX_CONFIG_BYTES } from '../../src/install-hooks/files.js';
import { cordonJson, hooksSandbox, writeFiles } from './support.js';

// Found by a hostile-input probe: configs up to 16 MiB were read and edited, and every edit parses
// the file again, so a 6.5 MB Hermes config.yaml held install-hooks for more than five minutes
// (killed), a 13 MB Gemini settings.json for 42 s, and doctor, which plans every agent, as long.

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let home: string;
let project: string;

beforeEach(() => {
  ({ sandbox, home, project, env } = hooksSandbox('cordon-hooks-size-'));
});
afterEach(() => sandbox.cleanup());

/** Valid `format` text of about `bytes` bytes, many keys in one mapping. */
function bigConfig(format: 'json' | 'yaml', bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = format === 'json' ? `  "k${i}": {"a": ${i}, "b": "${'x'.repeat(40)}"},` : `k${i}:\n  a: ${i}\n  b: ${'x'.repeat(40)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return format === 'json' ? `{\n${lines.join('\n')}\n  "last": 1\n}\n` : `${lines.join('\n')}\n`;
}

describe('an agent config over the size bound', () => {
  it(`(${MAX_CONFIG_BYTES} bytes) is refused unread, naming its size (CORDON_CONFIG_EDIT, exit 2), by install and doctor; the file stays`, async () => {
    expect(MAX_CONFIG_BYTES).toBe(1024 * 1024);
    const files: Array<[string, string, string]> = [
      ['gemini', '.gemini/settings.json', bigConfig('json', 1.5 * 1024 * 1024)],
      ['hermes', '.hermes/config.yaml', bigConfig('yaml', 1.5 * 1024 * 1024)],
    ];
    writeFiles(home, Object.fromEntries(files.map(([, path, text]) => [path, text])));
    for (const [agent, path, text] of files) {
      const size = statSync(join(home, path)).size;
      const r = await cordonJson(['install-hooks', '--agent', agent, '--write'], env, project);
      expect([agent, r.exitCode], r.stderr).toEqual([agent, 2]);
      expect(r.json.error.code).toBe('CORDON_CONFIG_EDIT');
      expect(r.json.error.message).toBe(`${join(home, path)}: is ${size} bytes, over the ${MAX_CONFIG_BYTES}-byte limit for this file; refusing to edit it, nothing was written`);
      expect(readFileSync(join(home, path), 'utf8') === text).toBe(true);
    }
    const doctor = await cordonJson(['doctor'], env, project);
    for (const [agent, path] of files) {
      const finding = doctor.json.findings.find((f: { check: string }) => f.check === `hooks:${agent}:user`);
      expect(finding.message, agent).toContain(`${join(home, path)}: is `);
    }
  });
});
