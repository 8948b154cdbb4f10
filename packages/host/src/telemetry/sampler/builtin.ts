import type { SamplerEntry } from '@cordon/plugin-api';
import type { Registry } from '../../bus/registry.js';

/**
 * The Linux sampler, registered by the host itself: `/proc` is always there on Linux, so it needs
 * no plugin. Other platforms plug in through `api.samplers` (`plugins/sampler-windows`). The
 * implementation is imported only inside the detached sampler process.
 */
export const linuxProcSamplerEntry: SamplerEntry = {
  name: 'linux-proc',
  platforms: ['linux'],
  load: async () => (await import('./linux/index.js')).procTreeSampler,
};

/** Registers the host's built-in samplers under the plugin name `cordon`. */
export function registerBuiltinSamplers(samplers: Registry<SamplerEntry>): void {
  samplers.add(linuxProcSamplerEntry, 'cordon');
}

/**
 * Picks the sampler for `platform`: the one named by `CORDON_SAMPLER` when set, else the first
 * (by name) whose `platforms` include `platform`; `undefined` when none does.
 */
export function pickSampler(samplers: Registry<SamplerEntry>, platform: NodeJS.Platform = process.platform, wanted = process.env.CORDON_SAMPLER): SamplerEntry | undefined {
  if (wanted) return samplers.get(wanted);
  return samplers.list().find(({ entry }) => entry.platforms.includes(platform))?.entry;
}
