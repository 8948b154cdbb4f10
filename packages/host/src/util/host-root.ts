import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Absolute root of the @cordon/host package, with a trailing separator. This module sits two
 * levels below it (`src/util/`, `dist/util/`), and so does the hook bundle that inlines it
 * (`dist/hot/hook.cjs`, see scripts/bundle-hot.mjs), so one relative URL serves all of them.
 */
// `import.meta.dirname` (Node ≥ 20.11; the bundles define it as `__dirname`) spares the bundle a URL
// round trip at start-up; a loader without it (a test transform) gets the directory from the URL.
export const HOST_ROOT = join(import.meta.dirname ?? dirname(fileURLToPath(import.meta.url)), '..', '..', sep);
