import type { CordonPlugin, ProcessTreeSampler, SamplerEntry } from '@cordon/plugin-api';

/**
 * The win32 sampler: the whole process table per tick from `NtQuerySystemInformation`, read
 * through koffi (loaded inside the detached sampler process only). The hook names its parent,
 * which on Windows is the shell the agent ran the hook through; `agentRoot` steps past it.
 */
export const windowsSamplerEntry: SamplerEntry = {
  name: 'windows-ntqsi',
  platforms: ['win32'],
  load: async (): Promise<ProcessTreeSampler> => {
    const [{ WinTreeReader }, { createNtSnapshot }, { stepPastShells }] = await Promise.all([import('./tree.js'), import('./nt.js'), import('./agent-root.js')]);
    const snapshot = createNtSnapshot();
    return {
      open: (rootPid) => new WinTreeReader(rootPid, { snapshot }),
      // One table with names, once per sampler start; ticks read none.
      agentRoot: (pid) => stepPastShells(createNtSnapshot({ imageNames: true })(), pid),
    };
  },
};

/** The `cordon:register` oclif hook of @cordon/sampler-windows: returns the plugin descriptor. */
export async function register(): Promise<CordonPlugin> {
  return {
    name: 'sampler-windows',
    apply(api) {
      api.samplers.register(windowsSamplerEntry);
    },
  };
}

export { WinTreeReader, type WinTreeOptions } from './tree.js';
export { parseProcessTable, type ProcessRecord } from './process-table.js';
