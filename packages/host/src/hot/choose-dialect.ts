import type { DialectEntry } from '@cordon/plugin-api';
import type { CordonHost } from '../bus/host.js';

/** Which dialect handles a payload, or why none does. */
export type DialectChoice = { readonly entry: DialectEntry; readonly how: 'flag' | 'sniffed' } | { readonly entry?: undefined; readonly reason: string };

/**
 * Picks the dialect: the one `--agent` names, else the registered dialect whose `sniff` gives
 * the payload the highest confidence above 0 (ties go to the first by name). A sniff that
 * throws counts as 0.
 */
export function chooseDialect(host: CordonHost, agent: string | undefined, payload: Readonly<Record<string, unknown>>, env: Readonly<Record<string, string | undefined>>): DialectChoice {
  if (agent !== undefined) {
    const entry = host.dialects.get(agent);
    if (entry) return { entry, how: 'flag' };
    const known = host.dialects.list().map((r) => r.entry.name);
    return { reason: `no dialect "${agent}" is registered (registered: ${known.join(', ') || 'none'}); install or link the @cordon/${agent} plugin` };
  }
  let best: DialectEntry | undefined;
  let score = 0;
  for (const { entry } of host.dialects.list()) {
    let s = 0;
    try {
      s = entry.sniff ? Number(entry.sniff(payload, env)) || 0 : 0;
    } catch {
      s = 0;
    }
    if (s > score) {
      best = entry;
      score = s;
    }
  }
  return best ? { entry: best, how: 'sniffed' } : { reason: 'no registered dialect recognises the payload; pass --agent <name>' };
}
