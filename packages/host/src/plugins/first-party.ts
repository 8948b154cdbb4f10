import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOST_ROOT } from '../util/host-root.js';

/**
 * Short names of the first-party plugins (`codex` for `@cordon/codex`), sorted: the oclif
 * `aliases` of the host's package.json whose target is `@cordon/<short name>` (the others,
 * `claude` or `gemini-cli`, are extra spellings of the same packages). The one list `cordon
 * plugins install <short>` resolves, read when a message needs it; `[]` if package.json cannot
 * be read.
 */
export function firstPartyPlugins(hostRoot: string = HOST_ROOT): string[] {
  try {
    const pkg = JSON.parse(readFileSync(join(hostRoot, 'package.json'), 'utf8')) as { oclif?: { aliases?: Record<string, unknown> } };
    return Object.entries(pkg.oclif?.aliases ?? {})
      .filter(([short, target]) => target === `@cordon/${short}`)
      .map(([short]) => short)
      .sort();
  } catch {
    return [];
  }
}

/**
 * Which first-party plugin (short name) registers each entry that a command asks the host's
 * registries for by name (`--agent codex`, `CORDON_SAMPLER`), by registry kind then entry name,
 * so that a missing entry names the plugin that adds it (install-hint.ts `missingEntryHint`).
 * Probes are never asked for by name. test/plugins/first-party.test.ts holds this table to what
 * the plugins under plugins/ register.
 */
export const FIRST_PARTY_ENTRIES: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.freeze({
  dialects: { aider: 'aider', 'claude-code': 'claude-code', codex: 'codex', cursor: 'cursor', gemini: 'gemini', hermes: 'hermes' },
  runners: { 'claude-code': 'claude-code', codex: 'codex', gemini: 'gemini' },
  samplers: { 'windows-ntqsi': 'sampler-windows' },
  exporters: { otlp: 'otlp' },
  charts: { vega: 'charts' },
});

/**
 * The first-party plugin (short name) that registers entry `name` in registry `kind`
 * ({@link FIRST_PARTY_ENTRIES}), or undefined. Only the table's own entries count: a name such as
 * `__proto__`, `constructor` or `toString` (`--agent __proto__`) is no plugin's, where indexing
 * the table found Object.prototype's members and the install hint built a path from them.
 */
export function firstPartyEntry(kind: string, name: string): string | undefined {
  if (!Object.hasOwn(FIRST_PARTY_ENTRIES, kind)) return undefined;
  const entries = FIRST_PARTY_ENTRIES[kind]!;
  return Object.hasOwn(entries, name) ? entries[name] : undefined;
}
