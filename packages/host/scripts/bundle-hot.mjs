// Bundles the fast routes of `bin/run.cjs`, each with everything it imports statically, into
// one CommonJS file:
// - `dist/hot/main.js` → `dist/hot/hook.cjs`, for `cordon hook`: agents start that process twice
//   per tool call (`npm run bench:hook`);
// - `dist/fast/check.js` → `dist/fast/check.cjs`, for the plain `cordon check` (`npm run
//   bench:envelope`);
// - `dist/control/fast.js` → `dist/control/fast.cjs`, for the plain `cordon control run … -- CMD`,
//   which an agent may put before every shell tool call (`npm run bench:control`);
// - `dist/fast/reduce.js` → `dist/fast/reduce.cjs`, for the plain `cordon reduce`, whose small
//   sessions cost less than oclif's start-up (`npm run bench:reduce`);
// - `dist/fast/plugin-command.js` → `dist/fast/plugin-command.cjs`, for plugin commands that
//   only read or record in the ledger (`cordon pcodx show|ids|turn`, `npm run bench:ledger`), and
//   `dist/fast/ledger-api.js` → `dist/fast/ledger-api.cjs`, the ledger it hands them;
// - @oclif/core → `dist/oclif/core-<version>.cjs`, for every other command (oclifCoreBundleOptions).
// One file read and compiled synchronously starts far faster than Node's asynchronous ES module
// loader walking dozens of files.
//
// - `import.meta.url` becomes the bundle's own URL. Each bundle sits at the same depth under
//   dist/ as the modules it replaces (dist/<dir>/<file>), so their `../../` URLs still resolve.
// - A relative dynamic `import()` stays a separate, lazily loaded module of dist/ (the ledger, the
//   /proc reader of the sampler process): the hook never pays for parsing them.
// - tapable, @cordon/plugin-api and @noble/hashes (the envelope's SHA-256 without node:crypto)
//   are inlined (the hook needs them on every call), and in the
//   reduce bundle better-sqlite3's JavaScript; every other package stays external and resolves
//   from node_modules at run time as before. tapable's
//   `require("util")` (only for `util.deprecate` on APIs Cordon does not call) takes tapable's own
//   browser shim, sparing the hook Node's util module.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleBase, COMPACT, writeBundle } from '../../../scripts/bundle-options.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const INLINED = ['tapable', '@cordon/plugin-api', '@noble/hashes'];
const { dependencies } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
/** Every dependency but those `inlined` stays external. */
const externals = (inlined) => Object.keys(dependencies).filter((name) => !inlined.includes(name)).flatMap((name) => [name, `${name}/*`]);

/** Keeps relative dynamic imports out of the bundle, re-pointed from the directory of `outfile`. */
const lazyImports = (outfile) => ({
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
});

/**
 * Puts the packages `names` into the bundle while keeping them lazy: `lazyPackage(name)`
 * (src/util/lazy-package.ts) of a bundled name calls the bundle's own copy on first use, so the
 * run pays neither Node's module resolution (package.json reads, stats) nor compiling several
 * files outside the code cache (`npm run bench:envelope`); any other name is
 * `require`d from node_modules as before. esbuild keeps a CommonJS package behind a function
 * it calls only on the first `require`, an ES module package behind its initialiser.
 */
const bundledLazyPackages = (names) => ({
  name: 'cordon-bundled-lazy-packages',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/]util[\\/]lazy-package\.js$/ }, (args) => ({
      contents: [
        `const bundled = { ${names.map((name) => `${JSON.stringify(name)}: () => require(${JSON.stringify(name)})`).join(', ')} };`,
        'export function lazyPackage(name) {',
        '  let loaded;',
        // node:module only when a package outside the bundle is asked for (1.3 ms at start-up otherwise).
        "  return () => (loaded ??= Object.hasOwn(bundled, name) ? bundled[name]() : process.getBuiltinModule('node:module').createRequire(import.meta.url)(name));",
        '}',
      ].join('\n'),
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
});

/**
 * Makes `lazyPackage(name)` of the names in `files` (package name -> bundle file beside the
 * outfile) load that bundle through bin/run.cjs's code cache (`requireCached`) on first use, and
 * any other name (or that one, when the file or `requireCached` is missing) from node_modules: a
 * package only some calls need stays out of the bundle every call reads, yet compiles from the code
 * cache when it is needed (the hook: picomatch, for a write the live envelope judges).
 */
const separateLazyPackages = (files) => ({
  name: 'cordon-separate-lazy-packages',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/]util[\\/]lazy-package\.js$/ }, (args) => ({
      contents: [
        `const files = ${JSON.stringify(files)};`,
        'export function lazyPackage(name) {',
        '  let loaded;',
        '  return () => (loaded ??= load(name));',
        '}',
        'function load(name) {',
        "  const cached = globalThis[Symbol.for('cordon.requireCached')];",
        "  if (Object.hasOwn(files, name) && typeof cached === 'function') {",
        '    try {',
        "      return cached(process.getBuiltinModule('node:path').join(import.meta.dirname, files[name]));",
        '    } catch {',
        '      // a build without the file: node_modules below',
        '    }',
        '  }',
        "  return process.getBuiltinModule('node:module').createRequire(import.meta.url)(name);",
        '}',
      ].join('\n'),
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
});

/**
 * Replaces `dist/bus/load-services.js` (the static import of the ledger and telemetry services,
 * and of the start-failure describer) with a loader of `dist/bus/services.cjs`, through bin/run.cjs's code cache (`requireCached`)
 * when it is there, on the first call: a fast route builds a plugin api on every call and never
 * uses these services, so its bundle leaves them (and @noble/hashes with them) out.
 */
const separateServices = (outfile) => ({
  name: 'cordon-separate-services',
  setup(b) {
    const file = relative(dirname(resolve(root, outfile)), resolve(root, SERVICES_BUNDLE)).split('\\').join('/');
    b.onLoad({ filter: /[\\/]dist[\\/]bus[\\/]load-services\.js$/ }, (args) => ({
      contents: [
        'function servicesModule() {',
        `  const file = process.getBuiltinModule('node:path').join(import.meta.dirname, ${JSON.stringify(file)});`,
        "  const cached = globalThis[Symbol.for('cordon.requireCached')];",
        "  return typeof cached === 'function' ? cached(file, 'host-services.cjs') : process.getBuiltinModule('node:module').createRequire(import.meta.url)(file);",
        '}',
        'export function hostServices() {',
        '  return servicesModule().createHostServices;',
        '}',
        'export function startFailureReporter() {',
        '  return servicesModule().startFailureReport;',
        '}',
      ].join('\n'),
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
});

/** The bundle of the ledger and telemetry services the fast routes load on first use (see separateServices). */
const SERVICES_BUNDLE = 'dist/bus/services.cjs';

/**
 * esbuild options of one bundle, paths relative to the package root; `inlined` adds packages to
 * inline, `alias` replaces the `util` shim for tapable (a bundle that inlines a package needing
 * Node's own `util` passes `{}`), `lazyInlined` names the packages `lazyPackage` takes from the
 * bundle instead of node_modules.
 */
function bundleOptions(entry, outfile, { inlined = [], alias = { util: 'tapable/lib/util-browser.js' }, lazyInlined = [], lazyFiles = {}, lazyServices = false } = {}) {
  const lazy = lazyInlined.length ? [bundledLazyPackages(lazyInlined)] : Object.keys(lazyFiles).length ? [separateLazyPackages(lazyFiles)] : [];
  if (lazyServices) lazy.push(separateServices(outfile));
  return {
    ...bundleBase(root, entry, outfile),
    external: externals([...INLINED, ...inlined, ...lazyInlined]),
    alias,
    plugins: [lazyImports(resolve(root, outfile)), ...lazy],
  };
}

/** esbuild options of the hook bundle (exported so a test can rebuild it in memory and compare). */
// A file write judged by the live envelope matches the armed globs (picomatch): from its own
// bundle beside this one, through the code cache, so every other call reads no byte of it.
export const hookBundleOptions = { ...bundleOptions('dist/hot/main.js', 'dist/hot/hook.cjs', { lazyFiles: { picomatch: 'picomatch.cjs' }, lazyServices: true }), ...COMPACT };
/** esbuild options of `dist/hot/picomatch.cjs`: picomatch alone, as the hook loads it on a judged write. */
export const picomatchBundleOptions = bundleBase(root, createRequire(resolve(root, 'package.json')).resolve('picomatch'), 'dist/hot/picomatch.cjs');
/** esbuild options of the fast `cordon check` bundle. */
// The check matches every changed path against the envelope's globs (picomatch) and may split a
// verifier command (shlex): both come from the bundle.
// Compact (COMPACT): 320 KB become about 205 KB, and loading the bundle through its code cache
// makes 30 % fewer page faults and takes about 3 ms less CPU on the 2-core VM (`npm run bench:envelope`).
export const checkBundleOptions = { ...bundleOptions('dist/fast/check.js', 'dist/fast/check.cjs', { lazyInlined: ['picomatch', 'shlex'], lazyServices: true }), ...COMPACT };
/**
 * esbuild options of the fast `cordon status` bundle: the envelope's state reader and renderer,
 * no plugin host (status fires no hook). Compact as the check's.
 */
export const statusBundleOptions = { ...bundleOptions('dist/fast/status.js', 'dist/fast/status.cjs'), ...COMPACT };
/** esbuild options of the fast `cordon control run` bundle. */
// Compact too: 105 KB without the services, 67 KB compact. A source below V8's 128 KB
// large-object size is allocated in the young generation; with the services gone the run still
// ends without a scavenge under a 30 KB environment (`node --trace-gc`, docs/ARCHITECTURE.md
// "Where the time goes"), where the 135 KB bundle of before would have set one off at 95 KB.
export const controlRunBundleOptions = { ...bundleOptions('dist/control/fast.js', 'dist/control/fast.cjs', { lazyServices: true }), ...COMPACT };
/** esbuild options of `dist/bus/services.cjs`, the ledger and telemetry services the fast routes load on first use. */
export const servicesBundleOptions = bundleOptions('dist/bus/services.js', SERVICES_BUNDLE);
/**
 * esbuild options of the fast `cordon reduce` bundle. better-sqlite3's JavaScript is inlined (a
 * dozen small modules resolved one by one cost a small reduce more than its rows; its backup
 * method needs Node's `util`, so no shim); its native addon still loads from node_modules.
 */
export const reduceBundleOptions = bundleOptions('dist/fast/reduce.js', 'dist/fast/reduce.cjs', { inlined: ['better-sqlite3'], alias: {} });

/**
 * esbuild options of the fast route of plugin commands (`cordon pcodx show|ids|turn`): finding the
 * plugin that declares the command, small, since every `cordon pcodx …` loads it.
 */
export const pluginCommandBundleOptions = bundleOptions('dist/fast/plugin-command.js', 'dist/fast/plugin-command.cjs');
/**
 * esbuild options of the ledger api that route hands a plugin, loaded only when a plugin runs the
 * command. The ledger is inlined with kysely (its CommonJS build) and better-sqlite3's
 * JavaScript, which `lazyPackage` takes from the bundle: a bundle run from the code cache cannot
 * `import()` them, and one file compiled from the cache starts faster than their modules
 * resolved one by one.
 */
export const ledgerApiBundleOptions = { ...bundleOptions('dist/fast/ledger-api.js', 'dist/fast/ledger-api.cjs', { inlined: ['kysely'], alias: {}, lazyInlined: ['better-sqlite3'] }), ...COMPACT };

/**
 * esbuild options of `dist/oclif/core-<version>.cjs`: @oclif/core (version `version`, as installed
 * beside the host) with every package it imports, one file for everything that is not a fast
 * route (`cordon arm`, `status`, `doctor`, `--version` …). Loaded from node_modules it is 160
 * modules resolved, read and compiled one by one (47 of them semver's), about half of such a
 * command's CPU time before it runs; bin/run.cjs loads this file through its code cache instead,
 * and only when the installed @oclif/core is that version (`npm run bench:envelope`, the
 * `cordon --version` row). TypeScript and its loaders stay out: oclif asks for them only for a
 * plugin linked from its TypeScript sources, which cordon turns off.
 */
export function oclifCoreBundleOptions(version) {
  const entry = createRequire(resolve(root, 'package.json')).resolve('@oclif/core');
  const base = bundleBase(root, entry, `dist/oclif/core-${version}.cjs`);
  return {
    ...base,
    banner: { js: `${base.banner.js}\n${IMPORT_THROUGH_HOST_BANNER}` },
    external: ['typescript', 'ts-node', 'tsx', 'tsx/*'],
    plugins: [importThroughHost],
    ...COMPACT,
  };
}

/**
 * Node 20 cannot run `import()` from a script compiled from a V8 code cache: it throws
 * ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING (Node 22 and 24 can). oclif loads every command and hook
 * module with `import(url)`, so in the @oclif/core bundle each `import(` whose specifier is not a
 * literal (a literal one esbuild resolves into the bundle) calls `__cordonImport` instead, which
 * hands the specifier to the `import` bin/run.cjs registers under `Symbol.for('cordon.import')`
 * (a file Node's own loader compiled, where `import()` works). The specifiers are absolute URLs
 * and paths, so whose `import` resolves them does not matter. A `.import(` call, and `import(`
 * inside a string or after a quote, is left alone.
 */
const importThroughHost = {
  name: 'cordon-import-through-host',
  setup(b) {
    const dynamicImport = /(?<![\w$."'`])import\((?!\s*["'`])/g;
    b.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!dynamicImport.test(text)) return undefined;
      dynamicImport.lastIndex = 0;
      return { contents: text.replace(dynamicImport, '__cordonImport('), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/** Defines `__cordonImport` (see {@link importThroughHost}); without bin/run.cjs's function, plain `import()`. */
const IMPORT_THROUGH_HOST_BANNER = 'const __cordonImport = (specifier) => { const load = globalThis[Symbol.for("cordon.import")]; return typeof load === "function" ? load(specifier) : import(specifier); };';

/** The version of @oclif/core installed where the host resolves it. */
export function installedOclifCoreVersion() {
  const entry = createRequire(resolve(root, 'package.json')).resolve('@oclif/core');
  return JSON.parse(readFileSync(resolve(dirname(entry), '..', 'package.json'), 'utf8')).version;
}

/** Writes the @oclif/core bundle of the installed version and removes those of other versions. */
async function writeOclifCoreBundle() {
  const version = installedOclifCoreVersion();
  const dir = resolve(root, 'dist/oclif');
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(dir)) if (name.startsWith('core-') && !name.startsWith(`core-${version}.cjs`)) rmSync(resolve(dir, name), { force: true });
  await writeBundle(oclifCoreBundleOptions(version));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await Promise.all([
    writeBundle(hookBundleOptions),
    writeBundle(picomatchBundleOptions),
    writeBundle(checkBundleOptions),
    writeBundle(statusBundleOptions),
    writeBundle(controlRunBundleOptions),
    writeBundle(servicesBundleOptions),
    writeBundle(reduceBundleOptions),
    writeBundle(pluginCommandBundleOptions),
    writeBundle(ledgerApiBundleOptions),
    writeOclifCoreBundle(),
  ]);
}
