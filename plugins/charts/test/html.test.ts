import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../../packages/host/src/telemetry/analyze/index.js';
import { renderHtml } from '../../../packages/host/src/telemetry/analyze/report/html.js';
import { writeSyntheticBatch } from '../../../packages/host/test/telemetry/analyze/synthetic.js';
import { renderSvg } from '../src/render.js';

// The callbacks of page.evaluate run in Chromium, on its DOM. The test program is compiled with
// Node's types only (a DOM lib would retype Node's globals), so the few DOM names they use are
// typed here, as the DOM gives them.
interface DomNode {
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomNode | null;
  querySelectorAll(selector: string): Iterable<DomNode> & { readonly length: number };
  readonly textContent: string | null;
  getBBox(): { readonly width: number; readonly height: number };
  getBoundingClientRect(): { readonly top: number; readonly bottom: number };
}
declare const document: DomNode;

// The HTML report of the synthetic batch opened in real headless Chromium (Debian's `chromium`,
// installed by scripts/test-prepare.sh): no console errors, no request leaves the page, and every
// chart has drawn marks with a visible size.

const CHROMIUM = process.env.CORDON_CHROMIUM ?? '/usr/bin/chromium';
let dir: string;
let browser: BrowserContext;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/test-prepare.sh (apt-get install -y chromium) or set CORDON_CHROMIUM`);
  dir = mkdtempSync(join(tmpdir(), 'cordon-analyze-html-'));
  // A persistent context on a fresh directory: Playwright passes it as --user-data-dir.
  browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the HTML report in headless Chromium', () => {
  it('opens without console errors or requests, and each chart has drawn, non-empty marks', async () => {
    const data = join(dir, 'data');
    writeSyntheticBatch(data);
    const report = await analyze({ dataDir: data, all: true });
    const file = join(dir, 'report.html');
    writeFileSync(file, await renderHtml(report, renderSvg));
    const page = await browser.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      if (!r.url().startsWith('file://')) requests.push(r.url());
    });
    await page.goto(`file://${file}`, { waitUntil: 'load' });
    const charts = await page.evaluate(() =>
      [...document.querySelectorAll('figure[data-chart]')].map((fig) => {
        const marks = [...fig.querySelectorAll('svg .role-mark > *')];
        const drawn = marks.filter((m) => {
          const b = m.getBBox();
          return b.width > 0 || b.height > 0;
        });
        return { id: fig.getAttribute('data-chart'), svgs: fig.querySelectorAll('svg').length, marks: marks.length, drawn: drawn.length, kinds: [...new Set([...fig.querySelectorAll('svg .role-mark')].map((g) => g.getAttribute('class')!.split(' ')[0]))].sort() };
      }),
    );
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    expect(charts.map((c) => c.id)).toEqual(['timeline-syn-a', 'timeline-syn-b', 'tools', 'call-peaks', 'retry-loops']);
    for (const c of charts) {
      expect(c.svgs, c.id!).toBe(1);
      expect(c.drawn, c.id!).toBeGreaterThan(0);
    }
    const byId = Object.fromEntries(charts.map((c) => [c.id, c]));
    // Timeline: shaded call windows (rect), memory and CPU lines, labels and points of the biggest calls.
    expect(byId['timeline-syn-a']!.kinds).toEqual(['mark-line', 'mark-rect', 'mark-rule', 'mark-symbol', 'mark-text']);
    // Labels sit above both lines (memory and CPU), never across them.
    for (const id of ['timeline-syn-a', 'timeline-syn-b']) {
      const geometry = await page.evaluate((chart) => {
        const fig = document.querySelector(`figure[data-chart="${chart}"]`)!;
        const box = (e: DomNode) => e.getBoundingClientRect();
        return {
          labels: [...fig.querySelectorAll('.mark-text.role-mark text')].map((t) => ({ text: t.textContent, bottom: box(t).bottom, top: box(t).top })),
          lineTop: Math.min(...[...fig.querySelectorAll('.mark-line.role-mark path')].map((l) => box(l).top)),
        };
      }, id);
      expect(geometry.labels.length, id).toBeGreaterThan(0);
      for (const l of geometry.labels) expect(l.bottom, `${id}: ${l.text}`).toBeLessThanOrEqual(geometry.lineTop);
      const sorted = [...geometry.labels].sort((a, b) => a.top - b.top);
      for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.top, `${id}: labels overlap`).toBeGreaterThanOrEqual(sorted[i - 1]!.bottom - 1);
    }
    // The histogram counts calls: whole-number ticks only.
    const ticks = await page.locator('figure[data-chart="call-peaks"] .role-axis-label text').allTextContents();
    const countTicks = ticks.filter((t) => /^-?\d+(\.\d+)?$/.test(t.replace(/,/g, '')));
    expect(countTicks.length).toBeGreaterThan(0);
    for (const t of countTicks) expect(t, 'a tick of the call count').not.toMatch(/\./);
    expect(byId['timeline-syn-a']!.drawn).toBeGreaterThanOrEqual(6 + 2 + 3 + 3);
    expect(byId.tools!.kinds).toEqual(['mark-rect']);
    expect(byId.tools!.drawn).toBe(4); // 2 tools × 2 bar charts
    expect(byId['retry-loops']!.kinds).toEqual(['mark-rect', 'mark-text']);
    const labels = await page.locator('figure[data-chart="timeline-syn-a"] .mark-text text').allTextContents();
    expect(labels).toContain('#1 Bash pytest -q (800 MiB)');
    const shot = process.env.CORDON_ANALYZE_SCREENSHOT ?? join(dir, 'report.png');
    await page.screenshot({ path: shot, fullPage: false });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    await page.close();
  }, 120_000);
});
