import type { CordonApi } from '@cordon/plugin-api';

/**
 * The host api for this plugin's commands. The host's oclif `init` hook leaves a factory at
 * `globalThis[Symbol.for('@cordon/api')]` (plugin-api `CORDON_API`); this plugin imports
 * plugin-api for types only (it is not installed beside an installed plugin), so it looks the
 * factory up itself instead of calling plugin-api's `cordonApi()`.
 * @throws Error when the command does not run inside the cordon host.
 */
export async function hostApi(): Promise<CordonApi> {
  const factory = (globalThis as Record<symbol, unknown>)[Symbol.for('@cordon/api')];
  if (typeof factory !== 'function') throw new Error('aider: this command must run inside the cordon host (no host api registered)');
  return (factory as (plugin: string) => Promise<CordonApi>)('aider');
}
