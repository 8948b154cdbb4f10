import { createHostServices, startFailureReport } from './services.js';

/**
 * The builder of the ledger and telemetry services ({@link createHostServices}). Here a static
 * import; the fast routes' bundles replace this module (scripts/bundle-hot.mjs) with one that
 * loads `dist/bus/services.cjs` through bin/run.cjs's code cache when a plugin first touches
 * `api.services.ledger` or `.telemetry`, so the route's own bundle carries neither (nor
 * @noble/hashes, which the telemetry service's session directories need): a smaller bundle to
 * read and compile on every call (`npm run bench:control`).
 */
export function hostServices(): typeof createHostServices {
  return createHostServices;
}

/**
 * {@link startFailureReport} (the words and status for a command that could not start) from the
 * same module: `control run` needs it only after a failed start, so its bundle, loaded for every
 * guarded shell call, leaves the describer out as it leaves out the services.
 */
export function startFailureReporter(): typeof startFailureReport {
  return startFailureReport;
}
