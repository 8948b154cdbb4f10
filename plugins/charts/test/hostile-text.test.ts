import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyze } from '../../../packages/host/src/telemetry/analyze/index.js';
import { renderHtml } from '../../../packages/host/src/telemetry/analyze/report/html.js';
import { call, samples } from '../../../packages/host/test/telemetry/reduce/helpers.js';
import { renderSvg } from '../src/render.js';

// Found by a hostile-input probe: the HTML report's tables showed an agent's controls as
// `\uXXXX`, but its charts (drawn by this plugin's Vega renderer, which escapes only XML markup)
// carried tool names, commands and session ids raw into the SVG's labels and `aria-label`s:
// `cat report.html` ran an OSC 52 clipboard write, and a browser reordered text at U+202E.

/** ESC, BEL, C1 controls, bidirectional overrides and isolates, line and paragraph separators. */
// eslint-disable-next-line no-control-regex
const UNSHOWN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const T = 1_800_000_000_000;
const HOSTILE = "x\u001b]52;c;SGVsbG8=\u0007\u001b[2J \u202etxt.exe \u009b31m\u2028end";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-charts-hostile-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the HTML report drawn with charts', () => {
  it('shows what an agent wrote in the charts with controls and bidi characters as \\uXXXX', async () => {
    const data = join(dir, 'data');
    const session = `evil${HOSTILE}`;
    // Three identical shell calls: a retry loop, so the retry chart has a bar and a label too.
    for (let i = 0; i < 3; i++) call(data, session, `k${i}`, T + 1000 * i, T + 1000 * i + 600, { tool_name: 'Bash', command: `printf '${HOSTILE}'` });
    call(data, session, 'tool', T + 4000, T + 4600, { tool_name: `Edit${HOSTILE}`, tool: 'edit', command: `/w/${HOSTILE}` });
    samples(data, session, Array.from({ length: 24 }, (_, i) => ({ t: T - 500 + 250 * i, mb: 100 + 10 * i, cpu: 5 })));
    const report = await analyze({ dataDir: data, all: true });
    const html = await renderHtml(report, renderSvg);
    expect(html).toContain('<svg');
    const raw = [...html].map((c, i) => ({ c, i })).filter(({ c }) => UNSHOWN.test(c));
    expect(raw.map(({ c, i }) => `${c.codePointAt(0)!.toString(16)} in …${html.slice(Math.max(0, i - 60), i)}`)).toEqual([]);
    // The labels and tooltips show the escapes (Vega writes the backslash as it is).
    expect(html).toMatch(/aria-label="[^"]*tool: Editx\\u001b\]52;c;SGVsbG8=\\u0007/);
    expect(html).toContain('\\u202etxt.exe \\u009b31m');
  }, 120_000);
});
