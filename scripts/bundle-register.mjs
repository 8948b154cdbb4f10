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
//
// Before the bundles, the modules tsc emitted are made to import the plugin's own copy of the
// plugin API instead of `@cordon/plugin-api` (inline-plugin-api.mjs): oclif loads the plugin's
// commands unbundled, and an installed plugin has no plugin API to import. A plugin whose
// `cordon:register` target is not the bundle (aider, sampler-windows) gets only that step.
//
// Last, `dist/.npmignore` keeps the source maps out of the package (they point into src/, which is
// not packed). Not with a `!dist/**/*.map` in package.json `files`: oclif's installer, behind
// `cordon plugins install file:<tgz>`, checks that every `files` entry exists in the installed
// package, and for a pattern warns "This plugin may not work as expected because the prepare
// script did not produce all the expected files".
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleBase, COMPACT, writeBundle } from './bundle-options.mjs';
import { inlinePluginApi, pluginApiEntry, VENDORED_PLUGIN_API } from './inline-plugin-api.mjs';

/** The register bundle, as a package.json's `cordon:register` hook names it when it has one. */
const REGISTER_BUNDLE = './dist/register.cjs';

/**
 * `@cordon/plugin-api` inlined: its run-time code (pure functions such as the patch readers the
 * dialects share) goes into the bundle, so the hook still loads no package; it holds no state, so
 * a copy per plugin is harmless. An import of the plugin's own copy (`dist/vendor/plugin-api.js`,
 * which the emitted modules import after inline-plugin-api.mjs) is taken from the plugin API's
 * modules too, so the bundle is the same whether or not the modules were rewritten yet. Every
 * other package stays external.
 */
function inlinePluginApiPlugin(root) {
  const vendored = resolve(root, VENDORED_PLUGIN_API);
  return {
    name: 'inline-plugin-api',
    setup(build) {
      build.onResolve({ filter: /^@cordon\/plugin-api$/ }, () => ({ path: pluginApiEntry(root) }));
      build.onResolve({ filter: /\/vendor\/plugin-api\.js$/ }, (args) => (resolve(args.resolveDir, args.path) === vendored ? { path: pluginApiEntry(root) } : undefined));
    },
  };
}

/**
 * esbuild options of the register bundle of the plugin at `root` (a test rebuilds it in memory).
 * Compact (bundle-options.mjs COMPACT): the hook reads a dialect's bundle on every tool call, and
 * `control run` cgroup-linux's on every command.
 */
export function registerBundleOptions(root) {
  return { ...bundleBase(root, 'dist/index.js', 'dist/register.cjs'), ...COMPACT, packages: 'external', plugins: [inlinePluginApiPlugin(root)] };
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
  return { ...bundleBase(root, module.replace(/\.cjs$/, '.js'), module), packages: 'external', plugins: [inlinePluginApiPlugin(root)] };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.cwd();
  await inlinePluginApi(root);
  const hooks = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).oclif?.hooks ?? {};
  if ([hooks['cordon:register']].flat().some((hook) => (typeof hook === 'string' ? hook : hook?.target) === REGISTER_BUNDLE)) await writeBundle(registerBundleOptions(root));
  const fast = fastCommandBundleOptions(root);
  if (fast) await writeBundle(fast);
  writeFileSync(resolve(root, 'dist/.npmignore'), '*.map\n');
}
