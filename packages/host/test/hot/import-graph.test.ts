import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { REPO } from './support.js';

// The hook process must never load @oclif/core (research aesthetics.md §6.4: importing it alone
// costs more than 100 ms per tool call). This walks the built import graph the hook can reach:
// bin/run.js's hot route, everything it imports statically, and the plugin entry modules the hot
// path imports at run time (with their static imports).

const STATIC = /^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

function graph(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(STATIC)) {
      if (spec!.startsWith('.')) queue.push(resolve(dirname(file), spec!));
      else if (spec === '@cordon/plugin-api') queue.push(join(REPO, 'packages/plugin-api/dist/index.js'));
      else packages.add(spec!);
    }
  }
  return { files, packages };
}

it('the hook path imports no @oclif package, statically or through the plugin entries', () => {
  const main = join(REPO, 'packages/host/dist/hot/main.js');
  expect(existsSync(main), 'build first').toBe(true);
  expect(readFileSync(join(REPO, 'packages/host/bin/run.js'), 'utf8')).toMatch(/argv\[0\] === 'hook'[\s\S]*import\('\.\.\/dist\/hot\/main\.js'\)[\s\S]*else[\s\S]*@oclif\/core/);
  const plugins = ['claude-code', 'codex', 'gemini', 'cursor', 'hermes'].map((p) => join(REPO, 'plugins', p, 'dist/index.js'));
  const { files, packages } = graph([main, ...plugins]);
  expect(files.size).toBeGreaterThan(30);
  expect([...packages].filter((p) => p.startsWith('@oclif/'))).toEqual([]);
  expect([...files].filter((f) => f.includes('/commands/') || f.includes('cordon-command'))).toEqual([]);
});
