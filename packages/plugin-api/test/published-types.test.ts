import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The published declarations are read by third-party plugins that may have no Node types and
// type-check with skipLibCheck off (test/e2e/registry proves it end to end; this catches a
// regression in seconds): no global Node namespaces, and only `tapable`, which the package
// depends on, as an external module.
const DIST = join(import.meta.dirname, '../dist');

function declarations(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? declarations(join(dir, e.name)) : e.name.endsWith('.d.ts') ? [join(dir, e.name)] : []));
}

describe('published plugin API declarations', () => {
  it('need nothing beyond the package and its dependencies', () => {
    const files = declarations(DIST);
    expect(files.length).toBeGreaterThan(5);
    const deps = Object.keys(JSON.parse(readFileSync(join(DIST, '../package.json'), 'utf8')).dependencies ?? {});
    for (const file of files) {
      // Code only: doc comments may mention processes and buffers.
      const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      // Module specifiers are paths, not code (`'./services/process.js'` names no global).
      expect(text.replace(/from '[^']+'/g, "from ''"), file).not.toMatch(/\bNodeJS\.|\bBuffer\b|\bprocess\./);
      for (const [, spec] of text.matchAll(/from '([^']+)'/g)) {
        if (!spec!.startsWith('.')) expect(deps, `${file} imports ${spec}`).toContain(spec);
      }
    }
  });
});
