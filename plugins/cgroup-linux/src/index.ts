import type { CordonPlugin } from '@cordon/plugin-api';
import { enforce } from './enforce.js';
import { probeEntries } from './probes.js';

/**
 * The `cordon:register` oclif hook of @cordon/cgroup-linux: returns the plugin descriptor. It
 * registers the probes behind `cordon control probe` (mount kind, controllers, delegation, PSI,
 * memory.peak, sched_ext, memcg_bpf_ops, swap, the tier table) and taps `enforce`, answering
 * only where cgroup v2 with memory and cpu can be used (research/cordon-resource.md A.8, A.9, C).
 */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'cgroup-linux',
    apply(api) {
      for (const probe of probeEntries()) api.probes.register(probe);
      api.hooks.enforce.tapPromise('cgroup-linux', (request) => enforce(request, api.log));
    },
  };
}
