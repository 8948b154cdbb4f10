import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// An installed plugin cannot resolve host code (docs/plugins.md): everything it needs
// comes through `api.services.telemetry` or by spawning `cordon hook`.

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('@cordon/aider imports', () => {
  it('imports plugin-api for types only and no host module', () => {
    for (const file of files(join(import.meta.dirname, '../src'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^import\s+(type\s+)?[^'"]*from\s+'([^']+)'/gm)) {
        const [, isType, spec] = m;
        expect(spec, file).not.toMatch(/@cordon\/host|packages\/host/);
        if (spec === '@cordon/plugin-api') expect(isType, `${file} must import @cordon/plugin-api with import type`).toBeTruthy();
      }
    }
  });
});
