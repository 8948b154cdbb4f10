import type { DialectEntry } from '@cordon/plugin-api';

/** Which registered agents the live envelope can answer before a write, for `cordon arm`'s output. */
export interface LiveCoverage {
  /** Agents whose dialect names the files a call writes (`Dialect.writeTargets`) and whose hooks are installed and current here: their writes are refused. */
  readonly refusing: readonly string[];
  /** Agents whose hook cannot refuse a write (no write tool the hook sees, e.g. Aider edits files in-process), or whose dialect failed to load. */
  readonly notRefusing: readonly string[];
  /** Agents whose hooks could refuse a write but are not installed here, or not current: nothing of theirs is refused yet. */
  readonly notHooked: readonly string[];
}

/**
 * Sorts the registered dialects by whether the live envelope refuses their writes (loads each
 * dialect once). `hooked`: the agents whose cordon hooks are installed and current at user scope
 * or in this repository (install-hooks/state.ts `hookedAgents`).
 */
export async function liveCoverage(entries: readonly DialectEntry[], hooked: readonly string[]): Promise<LiveCoverage> {
  const refusing: string[] = [];
  const notRefusing: string[] = [];
  const notHooked: string[] = [];
  for (const entry of entries) {
    let can = false;
    try {
      can = typeof (await entry.load()).writeTargets === 'function';
    } catch {
      can = false;
    }
    if (!can || !entry.loadInstaller) notRefusing.push(entry.name);
    else (hooked.includes(entry.name) ? refusing : notHooked).push(entry.name);
  }
  return { refusing, notRefusing, notHooked };
}

/** `arm`'s line about the live envelope (docs/envelopes.md "The live envelope"). */
export function liveCoverageText(coverage: LiveCoverage): string {
  const refused =
    coverage.refusing.length > 0
      ? `a file write outside the policy is refused before it happens for ${coverage.refusing.join(', ')} (their hooks are installed here)${
          coverage.notHooked.length > 0 ? `; not yet for ${coverage.notHooked.join(', ')}, whose hooks are not installed here or not current (\`cordon install-hooks --agent <agent> --write\`; \`cordon doctor\` says why)` : ''
        }`
      : "no agent has cordon's hooks installed here, so nothing is refused yet: run cordon install-hooks --agent <agent> --write";
  const not = coverage.notRefusing.length > 0 ? `; no hook can refuse a write for ${coverage.notRefusing.join(', ')}, so only \`cordon check\` judges those writes` : '';
  return `live: ${refused}${not}; shell commands are not judged live (\`cordon check\` audits what they did)`;
}
