// The esbuild options every Cordon bundle shares (packages/host/scripts/bundle-hot.mjs and
// scripts/bundle-register.mjs): one CommonJS file for Node 20 with a linked source map, whose
// `import.meta.url` is the bundle's own URL (the ES module sources use it to find files beside them).
import { resolve } from 'node:path';

/**
 * Options for bundling `entry` into `outfile` (both relative to the package `root`); callers add
 * what decides externals (`external`, `packages`) and any plugins or aliases.
 */
export function bundleBase(root, entry, outfile) {
  return {
    absWorkingDir: root,
    entryPoints: [resolve(root, entry)],
    outfile: resolve(root, outfile),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    define: { 'import.meta.url': '__cordonBundleUrl' },
    banner: { js: '"use strict";\nconst __cordonBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    sourcemap: 'linked',
    logLevel: 'warning',
  };
}
