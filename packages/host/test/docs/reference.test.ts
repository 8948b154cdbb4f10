import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/support/cli.js';

// docs/reference.md is the one environment-variable reference: every variable the shipped code
// reads (`env.NAME`, `process.env.NAME`, `env['NAME']`, a `CORDON_<KIND>_DIR` template, or a
// `'CORDON_…'`/`'PCODX_…'` name handed to a helper) is in it.

/** Source files that ship: `src/` and `bin/` of the host, the plugin API and every plugin. */
function shippedSources(): string[] {
  const roots = ['packages/host', 'packages/plugin-api', ...readdirSync(join(REPO_ROOT, 'plugins')).map((p) => `plugins/${p}`)]
    .flatMap((pkg) => ['src', 'bin'].map((d) => join(REPO_ROOT, pkg, d)));
  return roots.flatMap((root) => {
    try {
      return readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && /\.(ts|js|cjs|mjs)$/.test(e.name))
        .map((e) => join(e.parentPath, e.name));
    } catch {
      return [];
    }
  });
}

/** `CORDON_…`/`PCODX_…` string literals that are not variables: error codes and a global's name. */
function notVariables(): Set<string> {
  const catalogue = readFileSync(join(REPO_ROOT, 'packages/host/src/errors/catalogue.ts'), 'utf8');
  return new Set([...[...catalogue.matchAll(/'(CORDON_[A-Z_]+)'/g)].map((m) => m[1]!), 'PCODX_USAGE', 'PCODX_RUNTIME', 'CORDON_API']);
}

const NAMED = /['"`]((?:CORDON|PCODX)_[A-Z0-9_]+)['"`]/g;
const READS = /\b(?:process\.)?env(?:\.([A-Z_][A-Z0-9_]+)|\[['"]([A-Z_][A-Z0-9_]+)['"]\])/g;

describe('docs/reference.md lists every environment variable cordon reads', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs/reference.md'), 'utf8');
  const read = new Map<string, string>();
  for (const file of shippedSources()) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(READS)) read.set(m[1] ?? m[2]!, relative(REPO_ROOT, file));
    for (const m of text.matchAll(NAMED)) if (!notVariables().has(m[1]!)) read.set(m[1]!, relative(REPO_ROOT, file));
  }

  it('finds the variables in the sources (the scan itself works)', () => {
    for (const name of ['CORDON_DISABLE', 'CORDON_DB', 'PCODX_DB', 'CODEX_HOME', 'HERMES_HOME', 'XDG_DATA_HOME', 'AGENT_RESOURCE_HINT', 'CORDON_CONTROL_STALL_FULL', 'CORDON_WRAP_AGENT_PID']) expect(read.has(name), name).toBe(true);
    expect(read.size).toBeGreaterThan(35);
  });

  it('each one is in the reference, in backquotes', () => {
    const missing = [...read].filter(([name]) => !doc.includes(`\`${name}\``)).map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });

  it('the per-kind directory variables built from a template are listed too', () => {
    for (const kind of ['DATA', 'CONFIG', 'CACHE']) {
      expect(doc).toContain(`\`CORDON_${kind}_DIR\``);
      expect(doc).toContain(`\`XDG_${kind}_HOME\``);
    }
  });
});
