import { terminalText } from '../output/terminal.js';

/**
 * One finding of `cordon doctor`. `problem` findings make the command exit 1 and carry a `fix`;
 * `ok` and `info` findings only inform.
 */
export interface Finding {
  /** What was looked at: `node`, `sqlite`, `plugins`, `hooks:<agent>:<scope>`, `activity:<agent>`, `log`, `samplers`, `control`. */
  readonly check: string;
  readonly status: 'ok' | 'info' | 'problem';
  /** One line a person reads. */
  readonly message: string;
  /** For a problem: the command or step that fixes it. */
  readonly fix?: string;
  /** Machine-readable facts behind the message (paths, versions, times). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** What `cordon doctor --json` prints (`schema_version` 1). */
export interface DoctorReport {
  readonly schema_version: 1;
  /** True when no finding is a problem. */
  readonly ok: boolean;
  readonly findings: readonly Finding[];
}

/** Builds the report from its findings. */
export function doctorReport(findings: readonly Finding[]): DoctorReport {
  return { schema_version: 1, ok: findings.every((f) => f.status !== 'problem'), findings };
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
  lines.push(problems ? `${problems} problem${problems === 1 ? '' : 's'} found` : 'no problems found');
  return lines;
}
