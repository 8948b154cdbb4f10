import type { CordonApi } from '@cordon/plugin-api';

/**
 * The host api from inside a pcodx command. The factory sits at
 * `globalThis[Symbol.for('@cordon/api')]` (left there by the host's oclif `init` hook); reading it
 * directly keeps this plugin free of any runtime import of @cordon/plugin-api or @cordon/host,
 * which an installed plugin cannot resolve.
 */
export async function hostApi(): Promise<CordonApi> {
  const factory = (globalThis as Record<symbol, unknown>)[Symbol.for('@cordon/api')];
  if (typeof factory !== 'function') throw new Error('cordon pcodx must run inside the cordon CLI (no host api registered)');
  return (factory as (plugin: string) => Promise<CordonApi>)('codex');
}

/**
 * The host's typo rule (`api.services.names.closest`, bound), or undefined when the host lends
 * none (older than this plugin) or there is no host api: then nothing is suggested.
 */
export async function hostClosestName(): Promise<((typed: string, names: Iterable<string>) => string | undefined) | undefined> {
  try {
    const names = (await hostApi()).services.names;
    return names ? (typed, list) => names.closest(typed, list) : undefined;
  } catch {
    return undefined;
  }
}
