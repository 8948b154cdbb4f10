import type { DialectEntry } from '@cordon/plugin-api';
import type { CordonHost } from '../bus/host.js';
import { missingHookAgent } from '../bus/hook-agents.js';

/** Which dialect handles a payload, or why none does. */
export type DialectChoice = { readonly entry: DialectEntry; readonly how: 'flag' | 'sniffed' } | { readonly entry?: undefined; readonly reason: string };

/**
 * Picks the dialect: the one `--agent` names, else the registered dialect whose `sniff` gives
 * the payload the highest confidence above 0 (ties go to the first by name). A sniff that
 * throws counts as 0. An `--agent` nobody registers is refused in `install-hooks`' words
 * (bus/hook-agents.ts `missingHookAgent`).
 */
export function chooseDialect(host: CordonHost, agent: string | undefined, payload: Readonly<Record<string, unknown>>, env: Readonly<Record<string, string | undefined>>): DialectChoice {
  if (agent !== undefined) {
    const entry = host.dialects.get(agent);
    if (entry) return { entry, how: 'flag' };
    return { reason: missingHookAgent(host.dialects, agent).message };
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
