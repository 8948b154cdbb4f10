import type { AnalysisReport } from '../index.js';
import { definitionsTable, reportTables, type Table } from './tables.js';
import { plural } from '../../../util/plural.js';
import { markdownCell, markdownText } from '../../../output/markdown.js';
import { terminalCut, terminalLines, terminalText } from '../../../output/terminal.js';
import { shownJson } from '../../../output/json-text.js';

function header(report: AnalysisReport): string[] {
  return [`${plural(report.pooled.n_sessions, 'session')}, ${plural(report.pooled.n_calls, 'call')}, ${plural(report.pooled.n_samples, 'sample')}; generated ${report.generated_at} from ${report.db}`];
}


function mdTable(t: Table): string[] {
  return [`## ${markdownText(t.title)}`, '', ...(t.caption ? [markdownText(t.caption), ''] : []), `| ${t.headers.map(markdownCell).join(' | ')} |`, `|${t.headers.map(() => ' --- ').join('|')}|`, ...t.rows.map((r) => `| ${r.map(markdownCell).join(' | ')} |`), ''];
}

/**
 * Aligned columns. Each cell, the title and the caption are one line each as the terminal shows
 * them ({@link terminalText}: a session id or tool name holding a line break shows `\u000a`
 * instead of starting a line of its own), widths are measured on that shown text, and a cell too
 * wide is cut between whole escapes ({@link terminalCut}).
 */
function textTable(t: Table): string[] {
  const shown = (c: string | undefined) => terminalText(c ?? '');
  const widths = t.headers.map((h, i) => Math.min(48, Math.max(shown(h).length, ...t.rows.map((r) => shown(r[i]).length))));
  const line = (cells: readonly string[]) => cells.map((c, i) => (shown(c).length > widths[i]! ? terminalCut(c, widths[i]!) : shown(c).padEnd(widths[i]!))).join('  ').trimEnd();
  return [shown(t.title), ...(t.caption ? [`  ${shown(t.caption)}`] : []), line(t.headers), widths.map((w) => '-'.repeat(w)).join('  '), ...t.rows.map(line), ''];
}

/** One table as Markdown or aligned text (for `--compare`). */
export function renderTable(t: Table, format: 'md' | 'text'): string {
  return format === 'md' ? mdTable(t).join('\n') + '\n' : terminalLines(textTable(t).join('\n')) + '\n';
}

/** Markdown: a heading and a pipe table per {@link Table}; `|` in cells escaped. */
export function renderMarkdown(report: AnalysisReport): string {
  const table = mdTable;
  return ['# cordon analyze', '', ...header(report).map(markdownText), '', ...reportTables(report).flatMap(table), ...table(definitionsTable(report))].join('\n');
}

/** Plain text: column-aligned tables (wide cells of definitions and notes wrap onto the next lines). */
export function renderText(report: AnalysisReport): string {
  const table = textTable;
  const comparison = reportTables(report)[0]!;
  // The comparison's long columns get their own lines under each row, unclipped.
  const cmp = [comparison.title, `  ${comparison.caption}`, ...comparison.rows.flatMap((r) => [`${r[5]!.padEnd(8)} ${r[0]} (${r[1]}): measured ${r[3]} from ${r[4]}; paper ${r[2]}`, `         definition: ${r[6]}`, ...(r[7] !== '-' ? [`         differs: ${r[7]}`] : [])]), ''];
  // Commands, tool names and session ids are the agent's: escaped for the terminal, line by line.
  return terminalLines(['cordon analyze', ...header(report), '', ...cmp, ...reportTables(report).slice(1).flatMap(table), ...definitionsTable(report).rows.map(([k, v]) => `${k}: ${v}`)].join('\n')) + '\n';
}

/** The JSON report: the whole {@link AnalysisReport} (with its `schema_version`), pretty printed. */
export function renderJson(report: AnalysisReport): string {
  return shownJson(report, 2) + '\n';
}
