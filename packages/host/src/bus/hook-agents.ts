import type { DialectEntry } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { firstPartyEntry } from '../plugins/first-party.js';
import { missingEntryHint } from '../plugins/install-hint.js';
import { closestName } from '../util/closest-name.js';
import type { Registry } from './registry.js';

/**
 * The refusal of an `--agent` that names no installed agent taking hooks: `CORDON_REGISTRY_MISSING`
 * naming the installed agents that do and the one of them the user most likely meant
 * (`claud-code` → `claude-code`), else, for a name closest to an installed agent that takes none,
 * how to run that one (`aidr` → `aider`, with `cordon wrap`), else what to install (install-hint.ts
 * `missingEntryHint`: the first-party plugin that registers the name). Users know agents by name,
 * not by the dialect that reads their payloads, so `install-hooks`, `hook` and `control guard`
 * all word it so. `takesHooks` says which agents count: for `install-hooks` those with a hook
 * config to write; by default every agent (`cordon hook --agent aider` is what `cordon wrap`'s
 * shell shim runs).
 */
export function missingHookAgent(dialects: Registry<DialectEntry>, agent: string, takesHooks: (entry: DialectEntry) => boolean = () => true): CordonError {
  const installed = dialects.list().map((r) => r.entry);
  const taking = installed.filter(takesHooks).map((e) => e.name);
  // A name a first-party plugin registers is not a typo of another installed one.
  const typo = firstPartyEntry('dialects', agent) === undefined;
  const meant = typo ? closestName(agent, taking) : undefined;
  // `aidr`: closest to an installed agent that takes no hooks.
  const hookless = typo && !meant ? closestName(agent, installed.map((e) => e.name)) : undefined;
  const remedy = meant ? `did you mean "${meant}"?` : hookless ? `"${hookless}", the closest, takes no hooks: run it with \`cordon wrap -- ${hookless}\`` : missingEntryHint('dialects', agent);
  return new CordonError(ERROR_CODES.REGISTRY_MISSING, `no installed agent named "${agent}" takes hooks (those that do: ${taking.length ? taking.join(', ') : 'none'}); ${remedy}`, {
    details: { registry: 'dialects', name: agent, known: taking, ...(meant ? { suggestion: meant } : {}) },
  });
}
