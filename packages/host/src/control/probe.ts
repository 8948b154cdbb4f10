import type { ProbeEntry, ProbeResult } from '@cordon/plugin-api';
import type { Registered } from '../bus/registry.js';
import { TIERS } from './tiers.js';
import { pluginInstallCommand } from '../plugins/install-hint.js';

/** One probe's outcome as `cordon control probe --json` prints it. */
export interface ProbeReportEntry extends ProbeResult {
  readonly name: string;
  readonly plugin: string;
  /** The backend this probe gates, or null for an informational probe. */
  readonly gate: string | null;
}

/** What `cordon control probe` found. */
export interface ProbeReport {
  /** True when some backend's gate probes all passed: `control run` enforces here. */
  readonly available: boolean;
  /** The backend that would enforce, or null. */
  readonly backend: string | null;
  /** When unavailable: why guarded commands run unguarded. */
  readonly reason: string | null;
  /** When unavailable: what to do about it. */
  readonly fix: string | null;
  readonly probes: readonly ProbeReportEntry[];
}

/** Installing the Linux backend is the answer when no backend has registered probes. */
/** Why nothing enforces when no plugin taps `enforce`, with the command that adds Linux's (a checkout's link from a checkout). */
const noBackend = (): string => `no enforcement backend is installed (on Linux: @cordon/cgroup-linux, \`${pluginInstallCommand(['cgroup-linux'])}\`)`;

/**
 * Runs every registered probe (plugins add probes through `api.probes`, the host owns
 * the printing), in `order` then name order, one after another (some create and remove a test
 * cgroup). A probe that throws despite its contract is reported as failed. Enforcement is
 * available when some backend has gate probes and all of them passed; otherwise the reason is
 * the first failed gate probe's detail.
 */
export async function runProbes(entries: ReadonlyArray<Registered<ProbeEntry>>): Promise<ProbeReport> {
  const sorted = [...entries].sort((a, b) => (a.entry.order ?? 100) - (b.entry.order ?? 100) || (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0));
  const probes: ProbeReportEntry[] = [];
  for (const { entry, plugin } of sorted) {
    let result: ProbeResult;
    try {
      result = await entry.run({ tiers: TIERS });
    } catch (error) {
      result = { ok: false, detail: `probe failed: ${(error as Error).message}` };
    }
    probes.push({ name: entry.name, plugin, gate: entry.gate ?? null, ...result });
  }
  const backends = [...new Set(probes.flatMap((p) => (p.gate ? [p.gate] : [])))];
  const backend = backends.find((b) => probes.every((p) => p.gate !== b || p.ok)) ?? null;
  const failed = probes.find((p) => p.gate && !p.ok);
  return {
    available: backend !== null,
    backend,
    reason: backend ? null : (failed?.detail ?? noBackend()),
    fix: backend ? null : (failed?.fix ?? null),
    probes,
  };
}

/** The report as the text `cordon control probe` prints: a verdict line, then one aligned line per probe (`name  yes|no  detail`), fixes and tables indented below. */
export function formatProbeReport(report: ProbeReport): string[] {
  const out = [
    report.available
      ? `enforcement: available (${report.backend}): \`cordon control run\` runs each command in its own cgroup`
      : `enforcement: unavailable: ${report.reason}; \`cordon control run\` runs commands unguarded`,
  ];
  if (report.fix) out.push(`  to enable: ${report.fix}`);
  const width = Math.max(0, ...report.probes.map((p) => p.name.length));
  for (const p of report.probes) {
    out.push(`  ${p.name.padEnd(width)}  ${p.ok ? 'yes' : 'no '}  ${p.detail}`);
    const pad = ' '.repeat(width + 9);
    if (!p.ok && p.fix && p.fix !== report.fix) out.push(`${pad}fix: ${p.fix}`);
    for (const line of p.lines ?? []) out.push(`${pad}${line}`);
  }
  return out;
}
