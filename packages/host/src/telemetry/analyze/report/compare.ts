import type { AnalysisReport } from '../index.js';
import { measuredText, type Table } from './tables.js';
import { plural } from '../../../util/plural.js';

/** A labelled batch for `--compare`. */
export interface LabelledReport {
  readonly label: string;
  readonly report: AnalysisReport;
}

/** JSON of `cordon analyze --compare A B`. */
export interface CompareReport {
  readonly schema_version: number;
  readonly generated_at: string;
  readonly batches: ReadonlyArray<{ readonly label: string; readonly report: AnalysisReport }>;
}

/** The paper rows of two batches side by side: each batch's measured value and verdict. */
export function compareTable(a: LabelledReport, b: LabelledReport): Table {
  const rowsB = new Map(b.report.comparison.map((r) => [r.id, r]));
  return {
    title: `Batches side by side: A = ${a.label} (${plural(a.report.pooled.n_sessions, 'session')}), B = ${b.label} (${plural(b.report.pooled.n_sessions, 'session')})`,
    headers: ['quantity', 'paper', 'paper figure', 'A measured', 'A verdict', 'B measured', 'B verdict'],
    rows: a.report.comparison.map((r) => {
      const o = rowsB.get(r.id);
      return [r.quantity, r.paper_section, r.paper_figure, `${measuredText(r)} (${r.sample_count})`, r.verdict, o ? `${measuredText(o)} (${o.sample_count})` : '-', o?.verdict ?? 'no data'];
    }),
  };
}
