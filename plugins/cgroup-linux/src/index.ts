import { join } from 'node:path';
import type { CordonPlugin } from '@cordon/plugin-api';
import { enforce } from './enforce.js';
import { guardDecision, guardedAgents, type GuardContext } from './guard/decision.js';
import { probeEntries } from './probes.js';

/**
 * The `cordon:register` oclif hook of @cordon/cgroup-linux: returns the plugin descriptor. It
 * registers the probes behind `cordon control probe` (mount kind, controllers, delegation, PSI,
 * memory.peak, sched_ext, memcg_bpf_ops, swap, the tier table), taps `enforce`, answering only
 * where cgroup v2 with memory and cpu can be used (uncoalesced/cordon), and
 * taps `beforeToolCall` to guard the shell calls of agents `cordon control guard` switched on.
 */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'cgroup-linux',
    apply(api) {
      for (const probe of probeEntries()) api.probes.register(probe);
      api.hooks.enforce.tapPromise('cgroup-linux', (request) => enforce(request, api.log));
      // `cordon control guard --write`: shell tool calls of the chosen agents run under
      // `cordon control run` (this process is `cordon hook`: node and bin/run.cjs are cordon).
      // Tapped only while some agent is guarded: a tapping plugin moves every hook call's plugin
      // work onto a worker thread (the hook's time bound), which costs about one Node start.
      const agents = guardedAgents(api.paths.configDir);
      if (agents.size === 0) return;
      const context: GuardContext = { cordon: [process.execPath, process.argv[1] ?? 'cordon'], agents, stateRoot: join(api.paths.dataDir, 'guard') };
      api.hooks.beforeToolCall.tap('cgroup-linux:guard', (call) => guardDecision(call, context));
    },
  };
}
