// The esbuild options every Cordon bundle shares (packages/host/scripts/bundle-hot.mjs and
// scripts/bundle-register.mjs): one CommonJS file for Node 20 with a linked source map, whose
// `import.meta.url` is the bundle's own URL and `import.meta.dirname`/`filename` its directory and
// path (the ES module sources use them to find files beside them). The URL is worked out on first
// use only: `pathToFileURL` at start-up cost the hook about 0.5 ms (`npm run bench:hook`).
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
    define: { 'import.meta.url': '__cordonBundle.url', 'import.meta.dirname': '__dirname', 'import.meta.filename': '__filename' },
    banner: {
      js: '"use strict";\nconst __cordonBundle = { get url() { const url = require("node:url").pathToFileURL(__filename).href; Object.defineProperty(this, "url", { value: url }); return url; } };',
    },
    sourcemap: 'linked',
    logLevel: 'warning',
  };
}
