import type { Interfaces } from '@oclif/core';
type Config = Interfaces.Config;
import type { CollectedPlugin } from '../bus/host.js';
import { unbuiltLinkError } from './unbuilt.js';

/** How long one `cordon:register` round may take, in ms (`CORDON_REGISTER_TIMEOUT_MS`). */
const REGISTER_TIMEOUT_MS = 10_000;

/**
 * Runs the custom oclif hook event `cordon:register` across every loaded plugin (core, user,
 * linked) and returns what each answered, as Salesforce's `SfHook.run` does for `sf:*` events.
 * oclif runs plugins' hooks in parallel, which is why the descriptors are only collected here
 * and applied later in name order.
 */
export async function collectFromOclif(config: Config): Promise<CollectedPlugin[]> {
  const timeout = Number(process.env.CORDON_REGISTER_TIMEOUT_MS) || REGISTER_TIMEOUT_MS;
  const { successes, failures } = await config.runHook('cordon:register' as never, {} as never, timeout, true);
  const collected: CollectedPlugin[] = [];
  for (const s of successes as Array<{ plugin: { name: string }; result: unknown }>) collected.push({ source: s.plugin.name, descriptor: s.result });
  // A linked checkout never built fails with "Cannot find module …/dist/index.js": said as such, with its fix.
  for (const f of failures as Array<{ plugin: { name: string; type?: string; root?: string }; error: unknown }>) {
    const unbuilt = f.plugin.type === 'link' && f.plugin.root ? unbuiltLinkError(f.plugin.root, f.plugin.name) : undefined;
    collected.push({ source: f.plugin.name, error: unbuilt ?? f.error });
  }
  return collected;
}
