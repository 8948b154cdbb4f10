import type { AnalysisReport } from '../index.js';
import { htmlText } from '../../../output/html.js';
import { reportCharts } from './charts.js';
import { definitionsTable, reportTables, type Table } from './tables.js';
import { plural } from '../../../util/plural.js';

const esc = htmlText;

/** Draws one chart's Vega-Lite spec as an `<svg>` string (a `charts` renderer, e.g. @cordon/charts). */
export type DrawChart = (spec: Readonly<Record<string, unknown>>) => Promise<string>;

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#222;padding:0 16px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px}table{border-collapse:collapse;margin:8px 0;font-size:12.5px}
th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}th{background:#f4f4f4}
.caption{color:#555;font-size:12.5px}.chart{margin:12px 0 24px}.v-matches{color:#1e7e34}.v-lower,.v-higher{color:#b35c00}.v-no-data{color:#888}`;

function tableHtml(t: Table): string {
  const verdictCol = t.headers.indexOf('verdict');
  const cell = (c: string, i: number) => (i === verdictCol ? `<td class="v-${c.replace(/\s+/g, '-')}">${esc(c)}</td>` : `<td>${esc(c)}</td>`);
  return `<h2>${esc(t.title)}</h2>${t.caption ? `<p class="caption">${esc(t.caption)}</p>` : ''}<table><thead><tr>${t.headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${t.rows.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('')}</tbody></table>`;
}

/** No chart renderer: `missing` says, in the report where the charts would be, how to get one. */
export interface NoCharts {
  readonly missing: string;
}

/**
 * The HTML report: one self-contained file (inline CSS, charts as inline SVG, no script, no
 * external URL), so it opens offline and under any content policy. `draw` renders the charts;
 * without a renderer ({@link NoCharts}) the report has its tables and, in place of the charts,
 * one line saying how to add them.
 */
export async function renderHtml(report: AnalysisReport, draw: DrawChart | NoCharts): Promise<string> {
  const charts: string[] = [];
  if (typeof draw === 'function') {
    for (const chart of reportCharts(report)) {
      charts.push(`<figure class="chart" data-chart="${esc(chart.id)}"><figcaption><b>${esc(chart.title)}</b></figcaption>${await draw(chart.spec)}</figure>`);
    }
  } else charts.push(`<p class="caption no-charts">${esc(draw.missing)}</p>`);
  const [comparison, ...rest] = reportTables(report);
  const p = report.pooled;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cordon analyze</title><style>${STYLE}</style></head><body>
<h1>cordon analyze</h1>
<p>${plural(p.n_sessions, 'session')}, ${plural(p.n_calls, 'tool call')}, ${plural(p.n_samples, 'sample')}. Generated ${esc(report.generated_at)} from ${esc(report.db)}. JSON schema version ${report.schema_version}.</p>
${tableHtml(comparison!)}
<h2>Charts</h2>
${charts.join('\n')}
${rest.map(tableHtml).join('\n')}
${tableHtml(definitionsTable(report))}
</body></html>
`;
}
