import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { writeSyntheticBatch } from './synthetic.js';

// `cordon analyze` through the built bin over the synthetic batch plus one session whose
// reduction fails (its markers.jsonl is a directory).

/** oclif wraps long error lines: compare with whitespace collapsed. */
const flat = (s: string) => s.replace(/\s+/g, ' ');

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-analyze-cli-');
  // The HTML report's charts come from @cordon/charts.
  linkPlugins(sandbox.dataDir, ['charts']);
  writeSyntheticBatch(sandbox.dataDir);
  mkdirSync(join(sandbox.dataDir, 'runs', 'broken-session', 'markers.jsonl'), { recursive: true });
});
afterEach(() => sandbox.cleanup());

describe('cordon analyze', () => {
  it('reduces first, skips and reports a failed session, prints JSON with a schema version, no progress bar off a terminal', async () => {
    const r = await runCordon(['analyze', '--all', '--format', 'json'], { env: sandbox.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.schema_version).toBe(1);
    expect(report.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(['syn-a', 'syn-b']);
    expect(report.failed).toEqual([{ session: 'broken-session', stage: 'reduce', error: expect.stringMatching(/EISDIR|directory/) }]);
    expect(report.pooled.memory.max_peak).toMatchObject({ session_id: 'syn-a', value: 800, command: 'pytest -q' });
    expect(r.stderr).toContain('session broken-session skipped: reduce failed');
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).not.toContain('[###');
  }, 60_000);

  it('text and Markdown carry the comparison rows with section, verdict and definition; --out writes the HTML file', async () => {
    const text = await runCordon(['analyze', '--all'], { env: sandbox.env });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^lower +tool execution share of active time \(§3\.2, Fig\. 1b\): measured 26\.0 % from 7 calls in 2 sessions/m);
    expect(text.stdout).toContain('differs: process-tree RSS');
    expect(text.stdout).toContain('baseline: median of the samples outside every call window');
    expect(text.stdout).not.toContain('§6');
    const md = await runCordon(['analyze', '--all', '--format', 'md', '--agent', 'claude-code'], { env: sandbox.env });
    expect(md.exitCode, md.stderr).toBe(0);
    expect(md.stdout).toContain('| tool execution share of active time | §3.2, Fig. 1b | mean 36.4 % (GLM) – 42.5 % (Haiku) | 32.1 % | 6 calls in 1 session | lower |');
    expect(md.stdout).toContain('| syn-a | npm test | 3 | 1.50 | 50.0 |');
    const out = join(sandbox.dir('out'), 'report.html');
    const html = await runCordon(['analyze', '--all', '--format', 'html', '--out', out], { env: sandbox.env });
    expect(html.exitCode, html.stderr).toBe(0);
    const page = readFileSync(out, 'utf8');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).not.toMatch(/<script|https?:\/\/(?!vega\.github\.io|www\.w3\.org)/);
    expect(page.match(/<svg/g)?.length).toBe(5); // 2 timelines, tools, histogram, retry loops
  }, 120_000);

  it('--compare puts two batches side by side; a JSON report file is a batch too', async () => {
    const saved = join(sandbox.dir('out'), 'codex.json');
    expect((await runCordon(['analyze', '--agent', 'codex', '--format', 'json', '--out', saved], { env: sandbox.env })).exitCode).toBe(0);
    const r = await runCordon(['analyze', '--compare', 'agent:claude-code', saved, '--format', 'json'], { env: sandbox.env });
    expect(r.exitCode, r.stderr).toBe(0);
    const cmp = JSON.parse(r.stdout);
    expect(cmp.batches.map((b: { label: string; report: { pooled: { n_sessions: number } } }) => [b.label, b.report.pooled.n_sessions])).toEqual([
      ['agent:claude-code', 1],
      [saved, 1],
    ]);
    const md = await runCordon(['analyze', '--compare', 'agent:claude-code', 'agent:codex', '--format', 'md'], { env: sandbox.env });
    expect(md.stdout).toContain('| memory left unreleased by a retry loop (largest) | §3.3 | up to 502 MB | 50.0 MiB (1 loop) | matches | - (0 loops) | no data |');
  }, 120_000);

  it('--compare given a truncated saved report, the HTML report or other JSON: exit 2 naming the file and what was expected', async () => {
    const out = sandbox.dir('out');
    const saved = join(out, 'saved.json');
    expect((await runCordon(['analyze', '--all', '--format', 'json', '--out', saved], { env: sandbox.env })).exitCode).toBe(0);
    const html = join(out, 'report.html');
    expect((await runCordon(['analyze', '--all', '--format', 'html', '--out', html], { env: sandbox.env })).exitCode).toBe(0);
    const whole = readFileSync(saved, 'utf8');
    const files: Array<[string, string, string]> = [
      ['truncated.json', whole.slice(0, Math.floor(whole.length / 2)), 'JSON cut short or damaged ('],
      ['report.html', readFileSync(html, 'utf8'), 'an HTML or XML document'],
      ['other.json', JSON.stringify({ schema_version: 9, hello: 1 }), 'JSON, but not an analyze report (it has schema version 9)'],
      ['report.md', '# cordon analyze\n', 'not JSON'],
      ['empty.json', '', 'empty'],
      // A report of the right shape whose rows hold other types stopped the command with a
      // TypeError (`v.toFixed is not a function`, CORDON_INTERNAL, exit 1) naming no file.
      ['measured.json', JSON.stringify({ ...JSON.parse(whole), comparison: [{ ...JSON.parse(whole).comparison[0], measured: '1' }] }), 'JSON, but comparison[0].measured is "1", not a number or null'],
      ['null-row.json', JSON.stringify({ ...JSON.parse(whole), comparison: [null] }), 'JSON, but comparison[0] is null, not an object'],
      ['quantity.json', JSON.stringify({ ...JSON.parse(whole), comparison: [{ ...JSON.parse(whole).comparison[0], quantity: { a: 1 } }] }), 'JSON, but comparison[0].quantity is {"a":1}, not a string'],
      ['pooled.json', JSON.stringify({ ...JSON.parse(whole), pooled: {} }), 'JSON, but pooled.n_sessions is undefined, not a number'],
    ];
    for (const [name, content, what] of files) {
      const file = join(out, `bad-${name}`);
      writeFileSync(file, content);
      const r = await runCordon(['analyze', '--compare', 'agent:codex', file], { env: sandbox.env });
      expect(r.exitCode, name).toBe(2);
      expect(flat(r.stderr), name).toContain(`--compare ${file}: ${what}`);
      expect(flat(r.stderr), name).toContain('expected a JSON report written by `cordon analyze --format json` (schema version 1)');
      expect(r.stderr).not.toContain('SyntaxError:');
    }
    // Where the damage is, as an editor counts it; not V8's excerpt of the file.
    const cut = await runCordon(['analyze', '--compare', 'agent:codex', join(out, 'bad-truncated.json')], { env: sandbox.env });
    expect(flat(cut.stderr)).toMatch(/JSON cut short or damaged \([a-z ]+ at line \d+, column \d+\)/);
    expect(flat(cut.stderr)).not.toContain('is not valid JSON');
  }, 120_000);

  it('a filter that leaves no session is refused in one line naming it, exit 2 as an empty store is', async () => {
    const cases = [
      [['analyze', '--since', '2030-01-01'], '--since 2030-01-01'],
      [['analyze', '--agent', 'aider'], '--agent aider'],
      [['analyze', '--agent', 'aider', '--since', '2030-01-01', '--format', 'md'], '--agent aider --since 2030-01-01'],
      [['analyze', '--compare', 'agent:aider', 'all'], '--compare agent:aider'],
    ] as const;
    // The session whose reduction fails might have matched: it is named.
    const broken = ' (1 session could not be reduced: broken-session)';
    for (const [argv, filter] of cases) {
      const r = await runCordon([...argv], { env: sandbox.env });
      expect([argv.join(' '), r.exitCode, r.stdout, r.stderr]).toEqual([argv.join(' '), 2, '', `    Error: no recorded session matches ${filter}${broken}\n    Code: CORDON_BAD_INPUT\n`]);
    }
    const json = await runCordon(['analyze', '--since', '2030-01-01', '--json'], { env: sandbox.env });
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', message: `no recorded session matches --since 2030-01-01${broken}` });
    // Without that session, the line names the filter alone.
    rmSync(join(sandbox.dataDir, 'runs', 'broken-session'), { recursive: true });
    const clean = await runCordon(['analyze', '--since', '2030-01-01'], { env: sandbox.env });
    expect([clean.exitCode, clean.stdout, clean.stderr]).toEqual([2, '', '    Error: no recorded session matches --since 2030-01-01\n    Code: CORDON_BAD_INPUT\n']);
  }, 60_000);

  it('exits 2 naming the input for a bad date, a bad rule file or a one-sided --compare', async () => {
    const since = await runCordon(['analyze', '--since', 'yesterday-ish'], { env: sandbox.env });
    expect(since.exitCode).toBe(2);
    expect(flat(since.stderr)).toContain('--since "yesterday-ish": not a date');
    const rules = join(sandbox.dir('out'), 'rules.json');
    writeFileSync(rules, JSON.stringify([{ category: 'x', pattern: '[' }]));
    const bad = await runCordon(['analyze', '--all', '--rules', rules], { env: sandbox.env });
    expect(bad.exitCode).toBe(2);
    expect(flat(bad.stderr)).toContain('rule 1 (x) has an invalid pattern');
    // A rule file that is not JSON says where, as an editor counts (shared with .cordon.json: util/json-syntax.ts).
    writeFileSync(rules, '[\r\n  {"category": "x", "pattern": "y"}\r\n  {"category": "z"}\r\n]\r\n');
    const broken = await runCordon(['analyze', '--all', '--rules', rules], { env: sandbox.env });
    expect(broken.exitCode).toBe(2);
    expect(flat(broken.stderr)).toContain(`--rules ${rules}: not a readable JSON file (comma expected at line 3, column 3)`);
    writeFileSync(rules, '[{"category": "x", "pattern": "a", "pattern": "b"}]');
    const twice = await runCordon(['analyze', '--all', '--rules', rules], { env: sandbox.env });
    expect(twice.exitCode).toBe(2);
    expect(flat(twice.stderr)).toContain(`--rules ${rules}: "pattern" is given twice, at line 1, column 20 and again at line 1, column 36; JSON keeps only the last`);
    const unknown = await runCordon(['analyze', '--session', 'syn-a', '--session', 'no-such-session'], { env: sandbox.env });
    expect(unknown.exitCode).toBe(2);
    expect(flat(unknown.stderr)).toContain('--session "no-such-session": no recorded session of that id');
    const empty = makeSandbox('cordon-analyze-empty-');
    try {
      const none = await runCordon(['analyze'], { env: empty.env });
      expect(none.exitCode).toBe(2);
      expect(flat(none.stderr)).toContain('no recorded sessions under');
      // True with hooks installed too (a fresh user's case): it says when a session gets recorded, not "install hooks".
      expect(flat(none.stderr)).toContain("a session is recorded once an agent with cordon's hooks makes a tool call (`cordon install-hooks` installs them, `cordon doctor` says for which agents they are in place) or an agent runs under `cordon wrap`");
    } finally {
      empty.cleanup();
    }
    const one = await runCordon(['analyze', '--compare', 'agent:codex'], { env: sandbox.env });
    expect(one.exitCode).toBe(2);
    expect(flat(one.stderr)).toContain('--compare takes two batches');
    // --json is its own output, as for `check --json --format sarif`: no other format beside it.
    for (const format of ['md', 'html']) {
      const both = await runCordon(['analyze', '--json', '--format', format], { env: sandbox.env });
      expect(both.exitCode).toBe(2);
      expect(JSON.parse(both.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', message: `--json prints the analysis as JSON; it cannot be combined with --format ${format}` });
    }
  }, 120_000);

  it('--rules replaces the category table', async () => {
    const rules = join(sandbox.dir('out'), 'rules.json');
    writeFileSync(rules, JSON.stringify({ rules: [{ category: 'npm', pattern: '^npm\\b' }] }));
    const r = await runCordon(['analyze', '--all', '--rules', rules, '--json'], { env: sandbox.env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).pooled.tools.categories.map((c: { name: string; n: number }) => [c.name, c.n])).toEqual([
      ['other', 3],
      ['npm', 3],
    ]);
  }, 60_000);
});
