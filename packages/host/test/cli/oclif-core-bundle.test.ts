import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installedOclifCoreVersion, oclifCoreBundleOptions } from '../../scripts/bundle-hot.mjs';
import { bundleFiles } from '../../../../scripts/bundle-options.mjs';
import { REPO_ROOT, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';

// Every command that is not a fast route runs through oclif. bin/run.cjs loads @oclif/core as one
// bundle (dist/oclif/core-<version>.cjs) through its code cache, instead of 160 modules from
// node_modules, and every import of '@oclif/core' in the process gets that one copy.

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox('cordon-oclif-core-');
  linkPlugins(box.dataDir, ['codex']);
});
afterEach(() => box.cleanup());

const version = installedOclifCoreVersion();
const bundle = join(REPO_ROOT, 'packages/host/dist/oclif', `core-${version}.cjs`);
/** `import(` with a computed specifier (see scripts/bundle-hot.mjs importThroughHost). */
const COMPUTED_IMPORT = /(?<![\w$."'`])import\((?!\s*["'`])/;

describe('the @oclif/core bundle', () => {
  it('is the one `npm run build` writes for the installed @oclif/core, and leaves no computed import() to Node 20', async () => {
    const files = await bundleFiles(oclifCoreBundleOptions(version));
    const text: string = [...files].find(([path]) => path.endsWith('.cjs'))![1];
    expect(readFileSync(bundle, 'utf8') === text, `${bundle} is stale: run npm run build`).toBe(true);
    expect(text).toContain('__cordonImport(');
    // The one left is __cordonImport's own fallback, for a process bin/run.cjs did not start.
    const lines = text.split('\n').filter((line: string) => COMPUTED_IMPORT.test(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^const __cordonImport = /);
  });

  it('runs commands, plugin commands and oclif hooks on the first call (cache written) and the next (cache read), without loading @oclif/core from node_modules', async () => {
    const env = { ...box.env, NODE_DEBUG: 'module' };
    const cwd = box.dir('not-a-repo');
    for (const round of ['compiled', 'from the code cache']) {
      // status: a host command (ESM, imported by oclif); pcodx ids: a plugin's; a bad flag: the finally hook.
      const status = await runCordon(['status', '--json'], { cwd, env });
      expect(status.exitCode, `${round}: ${status.stderr}`).toBe(2);
      expect(JSON.parse(status.stdout).error.code, round).toBe('CORDON_REPO_ERROR');
      const shown = await runCordon(['--version'], { cwd, env });
      expect(shown.stdout, round).toContain(`@cordon/host/`);
      const plugin = await runCordon(['pcodx', 'ids', '--help'], { cwd, env });
      expect(plugin.exitCode, `${round}: ${plugin.stderr}`).toBe(0);
      expect(plugin.stdout, round).toContain('USAGE');
      const bad = await runCordon(['status', '--bogus'], { cwd, env: box.env });
      expect(bad.stderr, round).toBe('    Error: nonexistent flag: --bogus; see `cordon status --help`\n    Code: CORDON_BAD_INPUT\n');
      for (const r of [status, shown, plugin]) {
        const loaded = r.stderr.split('\n').filter((line) => /load "[^"]*node_modules\/@oclif\/core\//.test(line));
        expect(loaded, round).toEqual([]);
      }
      expect(readdirSync(join(box.cacheDir, 'code-cache')).some((name) => name.startsWith(`core-${version}.cjs-`)), round).toBe(true);
    }
  });
});
