import type { DialectEntry } from '@cordon/plugin-api';

/** Which registered agents the live envelope can answer before a write, for `cordon arm`'s output. */
export interface LiveCoverage {
  /** Agents whose dialect names the files a call writes (`Dialect.writeTargets`): their hooks can refuse a write. */
  readonly refusing: readonly string[];
  /** Agents whose hook cannot refuse a write (no write tool the hook sees, e.g. Aider edits files in-process), or whose dialect failed to load. */
  readonly notRefusing: readonly string[];
}

/** Sorts the registered dialects by whether the live envelope can refuse their writes (loads each dialect once). */
export async function liveCoverage(entries: readonly DialectEntry[]): Promise<LiveCoverage> {
  const refusing: string[] = [];
  const notRefusing: string[] = [];
  for (const entry of entries) {
    let can = false;
    try {
      can = typeof (await entry.load()).writeTargets === 'function';
    } catch {
      can = false;
    }
    (can ? refusing : notRefusing).push(entry.name);
  }
  return { refusing, notRefusing };
}

/** `arm`'s line about the live envelope (docs/envelopes.md "The live envelope"). */
export function liveCoverageText(coverage: LiveCoverage): string {
  const refused = coverage.refusing.length > 0 ? `a file write outside the policy is refused before it happens for ${coverage.refusing.join(', ')} (with their hooks installed: \`cordon install-hooks\`)` : 'no installed agent plugin can refuse a write before it happens';
  const not = coverage.notRefusing.length > 0 ? `; no hook can refuse a write for ${coverage.notRefusing.join(', ')}, so only \`cordon check\` judges those writes` : '';
  return `live: ${refused}${not}; shell commands are not judged live (\`cordon check\` audits what they did)`;
}
