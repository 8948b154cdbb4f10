import type { JsonDetails } from '../errors/index.js';
import { terminalText } from '../output/terminal.js';

/**
 * One finding of `cordon doctor`. `problem` findings make the command exit 1 and carry a `fix`;
 * `ok` and `info` findings only inform.
 */
export interface Finding {
  /** What was looked at: `node`, `sqlite`, `telemetry-db`, `plugins`, `hooks:<agent>:<scope>`, `activity:<agent>`, `log`, `samplers`, `control`. */
  readonly check: string;
  readonly status: 'ok' | 'info' | 'problem';
  /** One line a person reads. */
  readonly message: string;
  /** For a problem: the command or step that fixes it. */
  readonly fix?: string;
  /** Machine-readable facts behind the message (paths, versions, times). */
  readonly details?: JsonDetails;
}

/** What `cordon doctor --json` prints (`schema_version` 1). */
export interface DoctorReport {
  readonly schema_version: 1;
  /** True when no finding is a problem. */
  readonly ok: boolean;
  readonly findings: readonly Finding[];
}

/** Builds the report from its findings, one per check ({@link oneRowPerCheck}). */
export function doctorReport(findings: readonly Finding[]): DoctorReport {
  const rows = oneRowPerCheck(findings);
  return { schema_version: 1, ok: rows.every((f) => f.status !== 'problem'), findings: rows };
}

const RANK: Readonly<Record<Finding['status'], number>> = { ok: 0, info: 1, problem: 2 };

/**
 * The findings with every check's rows folded into one, at the place of its first: a check is
 * ok, information or a problem, never two of them (`ok hooks installed` above `!! no consent`
 * read as both). The row takes the worst status and the distinct messages of that status (the
 * milder ones are implied by it: a missing consent says the hooks are there), joined by `; `;
 * the distinct fixes, a fix that another extends (`… --write` beside `… --write --accept`) left
 * out; and the details of all rows, later keys winning.
 */
export function oneRowPerCheck(findings: readonly Finding[]): Finding[] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) groups.set(f.check, [...(groups.get(f.check) ?? []), f]);
  return [...groups.values()].map((rows) => {
    if (rows.length === 1) return rows[0]!;
    const status = rows.reduce<Finding['status']>((worst, f) => (RANK[f.status] > RANK[worst] ? f.status : worst), 'ok');
    const messages = [...new Set(rows.filter((f) => f.status === status).map((f) => f.message))];
    const fixes = [...new Set(rows.flatMap((f) => (f.fix ? [f.fix] : [])))];
    const kept = fixes.filter((fix) => !fixes.some((other) => other !== fix && other.startsWith(`${fix} `)));
    const details = Object.assign({}, ...rows.map((f) => f.details ?? {})) as Record<string, unknown>;
    return {
      check: rows[0]!.check,
      status,
      message: messages.join('; '),
      ...(kept.length ? { fix: kept.join('; ') } : {}),
      ...(Object.keys(details).length ? { details } : {}),
    };
  });
}

const MARK: Readonly<Record<Finding['status'], string>> = { ok: 'ok', info: '--', problem: '!!' };

/**
 * The report as text: one line per finding (`ok`, `--` for information, `!!` for a problem) with
 * its fix indented below, then a verdict line. Text from configs and logs is shown escaped
 * (`terminalText`), so a hostile log line cannot drive the terminal.
 */
export function formatDoctorReport(report: DoctorReport): string[] {
  const width = Math.max(0, ...report.findings.map((f) => f.check.length));
  const lines: string[] = [];
  for (const f of report.findings) {
    lines.push(`${MARK[f.status]} ${f.check.padEnd(width)}  ${terminalText(f.message)}`);
    if (f.fix) lines.push(`   ${' '.repeat(width)}  fix: ${terminalText(f.fix)}`);
  }
  const problems = report.findings.filter((f) => f.status === 'problem').length;
  // Information can carry a fix too (an agent found here without hooks while another is hooked):
  // the verdict says so, or "no problems found" under a `fix:` line reads as a contradiction.
  const suggestions = report.findings.filter((f) => f.status !== 'problem' && f.fix).length;
  const optional = suggestions ? `; ${suggestions} note${suggestions === 1 ? '' : 's'} (--) above suggest${suggestions === 1 ? 's' : ''} a fix you may want` : '';
  lines.push(problems ? `${problems} problem${problems === 1 ? '' : 's'} found${optional}` : `no problems found${optional}`);
  return lines;
}
