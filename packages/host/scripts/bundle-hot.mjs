// Bundles the hook process (`dist/hot/main.js` and everything it imports statically) into one
// CommonJS file, `dist/hot/hook.cjs`, which `bin/run.cjs` loads for `cordon hook`. Agents start
// that process twice per tool call; one file read and compiled synchronously starts far faster
// than Node's asynchronous ES module loader walking ~50 files (`npm run bench:hook`).
//
// - `import.meta.url` becomes the bundle's own URL. The bundle sits at the same depth under
//   dist/ as the modules it replaces (dist/<dir>/<file>), so their `../../` URLs still resolve.
// - A relative dynamic `import()` stays a separate, lazily loaded module of dist/ (the ledger, the
//   /proc reader of the sampler process): the hook never pays for parsing them.
// - tapable and @cordon/plugin-api are inlined (the hook needs them on every call); every other
//   package stays external and resolves from node_modules at run time as before. tapable's
//   `require("util")` (only for `util.deprecate` on APIs Cordon does not call) takes tapable's own
//   browser shim, sparing the hook Node's util module.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entry = resolve(root, 'dist/hot/main.js');
const outfile = resolve(root, 'dist/hot/hook.cjs');
const INLINED = new Set(['tapable', '@cordon/plugin-api']);
const { dependencies } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
const external = Object.keys(dependencies).filter((name) => !INLINED.has(name)).flatMap((name) => [name, `${name}/*`]);

/** Keeps relative dynamic imports out of the bundle, re-pointed from the bundle's directory. */
const lazyImports = {
  name: 'cordon-lazy-imports',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'dynamic-import') return undefined;
      const target = resolve(args.resolveDir, args.path);
      let path = relative(dirname(outfile), target).split('\\').join('/');
      if (!path.startsWith('.')) path = `./${path}`;
      return { path, external: true };
    });
  },
};

/** esbuild options of the hook bundle (exported so a test can rebuild it in memory and compare). */
export const hookBundleOptions = {
  absWorkingDir: root,
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external,
  alias: { util: 'tapable/lib/util-browser.js' },
  plugins: [lazyImports],
  define: { 'import.meta.url': '__cordonBundleUrl' },
  banner: { js: '"use strict";\nconst __cordonBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  sourcemap: 'linked',
  logLevel: 'warning',
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await build(hookBundleOptions);
