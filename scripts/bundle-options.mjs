// The esbuild options every Cordon bundle shares (packages/host/scripts/bundle-hot.mjs and
// scripts/bundle-register.mjs): one CommonJS file for Node 20 with a linked source map, whose
// `import.meta.url` is the bundle's own URL and `import.meta.dirname`/`filename` its directory and
// path (the ES module sources use them to find files beside them). The URL is worked out on first
// use only: `pathToFileURL` at start-up cost the hook about 0.5 ms (`npm run bench:hook`).
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
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

/**
 * What the bundles a fast route reads on every call are built with: no indentation, no comments,
 * shorter syntax where esbuild knows it is the same program (`minifySyntax`). Names are kept, so
 * stack traces still read, and the linked source map maps them back. On the 2-core VM every page
 * a process touches costs 12–15 µs: the check bundle went from 320 to 205 KB, `control run`'s
 * from 135 to 67 KB (`npm run bench:envelope`, `bench:control`).
 */
export const COMPACT = { minifyWhitespace: true, minifySyntax: true };

/**
 * esbuild keeps the doc comments of object and class members in its output, and a single
 * character outside ASCII there (`§`, `→`) makes V8 hold the whole bundle as a two-byte string:
 * reading it and compiling it from the code cache then costs the fast `cordon check` about 3 ms
 * more at start-up (`npm run bench:envelope`). The code itself is ASCII already (esbuild's
 * default `charset: 'ascii'` escapes strings, regular expressions and identifiers), so any
 * non-ASCII UTF-16 unit left is in a comment and becomes `?`: one unit for one, so the source
 * map's columns stay right.
 */
export function asciiComments(text) {
  return text.replace(/[^\x00-\x7f]/g, '?');
}

/** Builds `options` (see {@link bundleBase}) in memory: path → text of each file, the bundle through {@link asciiComments}. */
export async function bundleFiles(options) {
  const result = await build({ ...options, write: false });
  return new Map(result.outputFiles.map((file) => [file.path, file.path.endsWith('.cjs') ? asciiComments(file.text) : file.text]));
}

/** Builds `options` and writes its files (the bundle and its source map). */
export async function writeBundle(options) {
  for (const [path, text] of await bundleFiles(options)) writeFileSync(path, text);
}
