// First-party plugins have `@cordon/plugin-api` as a devDependency only, so an installed plugin
// (`cordon plugins install`, which installs its `dependencies`) has no plugin API to import. The
// bundles inline it (bundle-register.mjs), but oclif loads a plugin's commands as tsc emitted them,
// one file at a time, and a command may reach a module that calls a function of the plugin API
// (the codex plugin's `pcodx serve` cuts summaries with `cutCodePoints`). So after tsc, every
// emitted module of the plugin that imports `@cordon/plugin-api` is made to import the plugin's own
// copy instead, `dist/vendor/plugin-api.js`: the plugin API's run-time code as one ES module.
//
// Why not a real dependency: the @cordon packages are not on the public npm registry, so a tarball
// install (`cordon plugins install file:<tgz>`) would fail looking it up, and a dependency on a
// public-registry name we do not own invites dependency confusion. Why not the host lending every
// helper (`api.services.files.directoryProblem`): each pure function would grow the host's API, and
// a helper called deep in plain code would need the api passed down to it. The plugin API holds no
// state (its one global, the host's api factory, is `Symbol.for`), so a copy per plugin is
// harmless, as in the bundles. packages/host/test/plugins/runtime-imports.test.ts holds every
// first-party plugin to it: what its unbundled entry points reach loads nothing it does not depend on.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

/** Where a plugin's copy of the plugin API goes, relative to the plugin's root. */
export const VENDORED_PLUGIN_API = 'dist/vendor/plugin-api.js';

/** `from '@cordon/plugin-api'`, `import '@cordon/plugin-api'` and `import('@cordon/plugin-api')`, as tsc emits them. */
const SPECIFIER = /(\bfrom\s*|\bimport\s*(?:\(\s*)?)(["'])@cordon\/plugin-api\2/g;

/** The plugin API's entry module (its `dist/index.js`) as the plugin at `root` resolves it. */
export function pluginApiEntry(root) {
  return createRequire(resolve(root, 'package.json')).resolve('@cordon/plugin-api');
}

/** Every `.js` file under `dir` (the ES modules tsc emits; the `.cjs` bundles inline the API already). */
function emitted(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? emitted(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : []));
}

/**
 * Makes the modules tsc emitted under `<root>/dist` independent of an installed
 * `@cordon/plugin-api`: each import of it becomes a relative import of
 * {@link VENDORED_PLUGIN_API}, which is (re)written from the plugin API the plugin builds
 * against; a plugin none of whose modules imports it gets no copy (a stale one is removed).
 * Idempotent: a module already pointing at the copy is left as it is. Returns the files changed,
 * relative to `root`.
 */
export async function inlinePluginApi(root) {
  const vendored = resolve(root, VENDORED_PLUGIN_API);
  const changed = [];
  let needed = false;
  for (const file of emitted(resolve(root, 'dist'))) {
    if (file === vendored) continue;
    const text = readFileSync(file, 'utf8');
    let target = relative(dirname(file), vendored).split(sep).join('/');
    if (!target.startsWith('.')) target = `./${target}`;
    if (text.includes(`'${target}'`) || text.includes(`"${target}"`)) needed = true;
    const rewritten = text.replace(SPECIFIER, (_match, before, quote) => `${before}${quote}${target}${quote}`);
    if (rewritten === text) continue;
    writeFileSync(file, rewritten);
    changed.push(relative(root, file));
    needed = true;
  }
  if (!needed) {
    rmSync(vendored, { force: true });
    return changed;
  }
  await build(vendoredPluginApiOptions(root));
  return changed;
}

/**
 * esbuild options of the plugin's copy of the plugin API, {@link VENDORED_PLUGIN_API}: the plugin
 * API the plugin at `root` builds against, as one ES module (a test rebuilds it in memory to
 * check the copy is not stale).
 */
export function vendoredPluginApiOptions(root) {
  const { version } = JSON.parse(readFileSync(createRequire(resolve(root, 'package.json')).resolve('@cordon/plugin-api/package.json'), 'utf8'));
  return {
    absWorkingDir: root,
    entryPoints: [pluginApiEntry(root)],
    outfile: resolve(root, VENDORED_PLUGIN_API),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    banner: { js: `// @cordon/plugin-api ${version}, this plugin's own copy (scripts/inline-plugin-api.mjs): an installed plugin has no other.` },
    logLevel: 'warning',
  };
}
