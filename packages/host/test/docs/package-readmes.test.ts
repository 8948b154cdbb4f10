import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/support/cli.js';

// A package's README is shown on the registry's page of the package, where the repository's other
// files do not exist: a relative link there leads nowhere. Links must be absolute URLs or anchors.

function packageReadmes(): string[] {
  const dirs = ['packages', 'plugins'].flatMap((top) => readdirSync(join(REPO_ROOT, top)).map((name) => join(REPO_ROOT, top, name)));
  return dirs.map((d) => join(d, 'README.md')).filter((f) => existsSync(f));
}

describe('package READMEs', () => {
  it('every workspace package has one, and its links work on the registry (absolute or in-page)', () => {
    const readmes = packageReadmes();
    expect(readmes.length).toBeGreaterThanOrEqual(12);
    const broken: string[] = [];
    for (const file of readmes) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)/gm)) {
        const target = m[1] ?? m[2]!;
        if (!/^(https?:\/\/|mailto:|#)/.test(target)) broken.push(`${file.slice(REPO_ROOT.length + 1)}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
