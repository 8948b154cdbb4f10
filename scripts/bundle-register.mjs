// Bundles a plugin's `cordon:register` module (`dist/index.js`, compiled by `tsc -b`) with
// everything it imports, dynamic imports included, into one CommonJS file, `dist/register.cjs`,
// which the plugin's package.json names as its `cordon:register` target. Run from the plugin's
// directory (`npm run bundle`, part of the root `npm run build`).
//
// Why: the hook process loads the dialect plugin on every tool call. One CommonJS file is read
// and compiled synchronously by `require`, while an ES module graph starts Node's ES module
// loader and reads each file asynchronously: several ms of every call (`npm run bench:hook`).
// oclif loads the same file for `cordon:register` on its own path, so both paths run one code.
//
// Packages stay external (first-party dialect plugins have none at run time); the rest of the
// options are shared (bundle-options.mjs).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleBase, COMPACT, writeBundle } from './bundle-options.mjs';

/**
 * `@cordon/plugin-api` inlined: its run-time code (pure functions such as the patch readers the
 * dialects share) goes into the bundle, so the hook still loads no package; it holds no state, so
 * a copy per plugin is harmless. Every other package stays external.
 */
const inlinePluginApi = {
  name: 'inline-plugin-api',
  setup(build) {
    build.onResolve({ filter: /^@cordon\/plugin-api$/ }, (args) => ({ path: createRequire(resolve(args.resolveDir, 'x.js')).resolve('@cordon/plugin-api') }));
  },
};

/**
 * esbuild options of the register bundle of the plugin at `root` (a test rebuilds it in memory).
 * Compact (bundle-options.mjs COMPACT): the hook reads a dialect's bundle on every tool call, and
 * `control run` cgroup-linux's on every command.
 */
export function registerBundleOptions(root) {
  return { ...bundleBase(root, 'dist/index.js', 'dist/register.cjs'), ...COMPACT, packages: 'external', plugins: [inlinePluginApi] };
}

/**
 * esbuild options of the fast command module the plugin at `root` declares in its package.json
 * (`cordon.fastCommands.module`, a `.cjs` file under dist/ bundled from the `.js` beside it), or
 * undefined when it declares none. The host loads it for those commands before oclif (its
 * `src/fast/plugin-command.ts`); oclif's commands import the same modules unbundled.
 * `@cordon/plugin-api` is inlined as in the register bundle (the codex plugin's `--cwd` check),
 * so the module loads no package.
 */
export function fastCommandBundleOptions(root) {
  const module = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).cordon?.fastCommands?.module;
  if (typeof module !== 'string' || !module.endsWith('.cjs')) return undefined;
  return { ...bundleBase(root, module.replace(/\.cjs$/, '.js'), module), packages: 'external', plugins: [inlinePluginApi] };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.cwd();
  await writeBundle(registerBundleOptions(root));
  const fast = fastCommandBundleOptions(root);
  if (fast) await writeBundle(fast);
}
