import { fileURLToPath } from 'node:url';

/**
 * Absolute root of the @cordon/host package, with a trailing separator. This module sits two
 * levels below it (`src/util/`, `dist/util/`), and so does the hook bundle that inlines it
 * (`dist/hot/hook.cjs`, see scripts/bundle-hot.mjs), so one relative URL serves all of them.
 */
export const HOST_ROOT = fileURLToPath(new URL('../../', import.meta.url));
