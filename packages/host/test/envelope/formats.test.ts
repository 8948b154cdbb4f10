import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ajvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import fc from 'fast-check';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { git, makeRepo, writeFiles } from '../../../../test/support/git.js';
import { escapeData, escapeProperty, pathUri, workflowCommand, xmlText } from '../../src/envelope/formats/index.js';

/** `cordon check --format github|sarif|junit` on real repositories through the built bin. */

// Both packages are CommonJS whose module.exports is also their `default`: TypeScript under
// NodeNext types the default import as the whole module, so the class is taken from `default`.
const Ajv = ajvDraft04.default;
const addFormats = ajvFormats.default;
const schema = JSON.parse(readFileSync(new URL('../fixtures/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false, // The schema's `language` pattern has a stray `]`, legal only without the u flag.
  unicodeRegExp: false });
addFormats(ajv);
const validateSarif = ajv.compile(schema);

/** The runner's unescaping of workflow command data and properties (GitHub's documented syntax). */
const unescapeData = (s: string) => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
const unescapeProperty = (s: string) => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');

/** Parses one `::name k=v,…::data` line as the documented syntax says, unescaping each part. */
function parseCommand(line: string): { name: string; properties: Record<string, string>; data: string } {
  const m = /^::([a-z-]+)(?: ([^:]*))?::(.*)$/s.exec(line);
  if (!m) throw new Error(`not a workflow command: ${line}`);
  const properties: Record<string, string> = {};
  for (const pair of (m[2] ?? '').split(',').filter(Boolean)) {
    const eq = pair.indexOf('=');
    properties[pair.slice(0, eq)] = unescapeProperty(pair.slice(eq + 1));
  }
  return { name: m[1]!, properties, data: unescapeData(m[3]!) };
}

describe('workflow command escaping', () => {
  it('escapes %, CR, LF in data and also : and , in properties (documented examples)', () => {
    expect(escapeData('50% done\r\nnext')).toBe('50%25 done%0D%0Anext');
    expect(escapeProperty('a:b,c%d\ne')).toBe('a%3Ab%2Cc%25d%0Ae');
    expect(workflowCommand('error', { file: 'src/a,b:c.ts', title: 'cordon: x', line: undefined }, 'bad\n::warning::injected')).toBe(
      '::error file=src/a%2Cb%3Ac.ts,title=cordon%3A x::bad%0A::warning::injected',
    );
  });

  it('round-trips any text through the runner unescaping and never ends the line (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (file, title, data) => {
        const line = workflowCommand('error', { file, title }, data);
        expect(line).not.toMatch(/[\r\n]/);
        const parsed = parseCommand(line);
        expect(parsed).toEqual({ name: 'error', properties: { file, title }, data });
      }),
      { numRuns: 300 },
    );
  });

  it('XML text escapes markup, shows controls as escapes and drops what XML 1.0 cannot hold; SARIF URIs percent-encode bytes', () => {
    expect(xmlText(`a<b>&"c'\u0001\u0000\ud800`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;\\u0001\\u0000\ufffd');
    expect(pathUri('docs/a b#?%.md')).toBe('docs/a%20b%23%3F%25.md');
    expect(pathUri('x-\udcff.py')).toBe('x-%FF.py');
    expect(pathUri('é')).toBe('%C3%A9');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const doc = `<r a="${xmlText(s)}">${xmlText(s)}</r>`;
        expect(XMLValidator.validate(doc)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-formats-');
});
afterEach(() => sandbox.cleanup());
const cordon = (args: string[], cwd: string) => runCordon(args, { env: sandbox.env, cwd });

/** A failing verifier whose output would inject commands and break XML if not escaped. */
const NASTY = `sh -c 'printf "50%% fail <b>&amp;\\n::warning::injected\\nlast line\\n" >&2; exit 4'`;

/** A repository with a committed range: `inPolicy` changes only src/ files, else README and a strange name too. */
function rangeRepo(inPolicy: boolean): { repo: string; base: string } {
  const repo = makeRepo(sandbox.dir(`repo-${Math.random().toString(36).slice(2)}`), { 'src/app.py': 'a\n', 'README.md': 'r\n', '.cordon.json': JSON.stringify({ allow: ['src/**'], 'max-added-lines': 50, verify: ['true', NASTY] }) }, sandbox.env);
  const base = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
  writeFiles(repo, inPolicy ? { 'src/app.py': 'a\nb\n' } : { 'src/app.py': 'a\nb\n', 'README.md': 'changed\n', 'docs/a:b,c%d #1.md': 'x\n' });
  git(repo, ['add', '-A'], sandbox.env);
  git(repo, ['commit', '-qm', 'change'], sandbox.env);
  return { repo, base };
}

describe('cordon check --format', () => {
  it('github: one ::error per violation with file= where there is one, escaped; exit codes unchanged', async () => {
    const outside = rangeRepo(false);
    let r = await cordon(['check', '--base', outside.base, '--format', 'github'], outside.repo);
    expect(r.exitCode).toBe(3);
    let lines = r.stdout.trimEnd().split('\n');
    expect(lines.every((l) => l.startsWith('::'))).toBe(true);
    let cmds = lines.map(parseCommand);
    expect(cmds.filter((c) => c.properties.file !== undefined).map((c) => c.properties.file)).toEqual(['README.md', 'docs/a:b,c%d #1.md']);
    expect(lines.some((l) => l.includes('file=docs/a%3Ab%2Cc%25d #1.md,'))).toBe(true);
    expect(cmds.at(-1)).toMatchObject({ name: 'error', properties: { title: 'cordon: rejected' } });
    expect(cmds.at(-1)!.data).toMatch(/^2 violations: 3 files/);

    const inside = rangeRepo(true);
    r = await cordon(['check', '--base', inside.base, '--format', 'github'], inside.repo);
    expect(r.exitCode).toBe(3);
    lines = r.stdout.trimEnd().split('\n');
    // The verifier's `::warning::` line stays inside the escaped data of its ::error.
    expect(lines).toHaveLength(2);
    cmds = lines.map(parseCommand);
    expect(cmds[0]).toMatchObject({ name: 'error', properties: { title: 'cordon: verifier_failed' } });
    expect(cmds[0]!.properties.file).toBeUndefined();
    expect(cmds[0]!.data).toContain('verifier failed (exit 4)');
    // The verifier's line that would be a workflow command in a log is shown inert, as in the text verdict.
    expect(cmds[0]!.data).toContain('50% fail <b>&amp;\n\\u003a:warning::injected\nlast line');

    const ok = await cordon(['check', '--base', inside.base, '--format', 'github', '--verify', 'true'], inside.repo);
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout.trimEnd().split('\n').map(parseCommand)).toEqual([{ name: 'notice', properties: { title: 'cordon: accepted' }, data: expect.stringMatching(/^within the policy: 1 file, \+1 -0 lines/) }]);
  });

  it('github: a path a terminal would not show as itself gets no file= and no raw control anywhere on the line', async () => {
    const repo = makeRepo(sandbox.dir('repo-controls'), { 'src/app.py': 'a\n', '.cordon.json': JSON.stringify({ allow: ['src/**'] }) }, sandbox.env);
    const base = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    const names = ['esc\u001b[2Jclear.md', 'bell\u0007.md', 'rtl\u202etxt.exe', 'c1\u009b31m.md'];
    writeFiles(repo, Object.fromEntries(names.map((name) => [name, 'x\n'])));
    git(repo, ['add', '-A'], sandbox.env);
    git(repo, ['commit', '-qm', 'odd names'], sandbox.env);
    const r = await cordon(['check', '--base', base, '--format', 'github'], repo);
    expect(r.exitCode).toBe(3);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(names.length + 1);
    // Found by a fresh user: `file=esc<ESC>[2Jclear.md` carried the raw ESC into the CI log.
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    const cmds = lines.slice(0, -1).map(parseCommand);
    expect(cmds.every((c) => c.properties.file === undefined)).toBe(true);
    // Each path is named in its message, its controls as `\uXXXX`.
    const shown = (name: string) => name.replace(/[\u0000-\u001f\u007f-\u009f\u202e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    for (const name of names) expect(cmds.filter((c) => c.data.includes(shown(name))), `${shown(name)} in ${lines.join('\n')}`).toHaveLength(1);
  });

  it('github: a verifier\'s controls (colours, an OSC 52 clipboard write, BEL) reach the log escaped', async () => {
    const script = join(sandbox.root, 'osc.sh');
    writeFiles(sandbox.root, { 'osc.sh': '#!/bin/sh\nprintf "a\\033]52;c;aGk=\\007b\\033[31mred\\n" >&2; exit 1\n' });
    chmodSync(script, 0o755);
    const repo = makeRepo(sandbox.dir('repo-osc'), { 'src/app.py': 'a\n' }, sandbox.env);
    const base = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    writeFiles(repo, { 'src/app.py': 'b\n' });
    git(repo, ['commit', '-qam', 'change'], sandbox.env);
    const r = await cordon(['check', '--base', base, '--allow', 'src/**', '--verify', script, '--format', 'github'], repo);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(parseCommand(r.stdout.split('\n')[0]!).data).toContain('a\\u001b]52;c;aGk=\\u0007b\\u001b[31mred');
  });

  it('sarif: valid SARIF 2.1.0 (official schema) on stdout and with --out; results, rules, locations', async () => {
    const outside = rangeRepo(false);
    const r = await cordon(['check', '--base', outside.base, '--format', 'sarif'], outside.repo);
    expect(r.exitCode).toBe(3);
    const log = JSON.parse(r.stdout);
    expect(validateSarif(log), JSON.stringify(validateSarif.errors)).toBe(true);
    const run = log.runs[0];
    expect(run.tool.driver).toMatchObject({ name: 'cordon', version: '0.1.0' });
    expect(run.results.map((x: { ruleId: string }) => x.ruleId)).toEqual(['path_outside_policy', 'path_outside_policy']);
    expect(run.results.map((x: { locations: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }) => x.locations[0]!.physicalLocation.artifactLocation.uri)).toEqual(['README.md', 'docs/a%3Ab%2Cc%25d%20%231.md']);
    expect(run.tool.driver.rules).toEqual([expect.objectContaining({ id: 'path_outside_policy' })]);
    expect(run.invocations[0]).toEqual({ executionSuccessful: true, exitCode: 3 });
    expect(run.properties).toMatchObject({ passed: false, mode: 'range', metrics: { files: 3 } });
    // The validator is live: a wrong version or a result without a message is refused.
    expect(validateSarif({ ...log, version: '2.0.0' })).toBe(false);
    expect(validateSarif({ ...log, runs: [{ ...run, results: [{ ruleId: 'x' }] }] })).toBe(false);

    const inside = rangeRepo(true);
    const file = join(sandbox.dir('out'), 'cordon.sarif');
    const w = await cordon(['check', '--base', inside.base, '--format', 'sarif', '--out', file], inside.repo);
    expect(w.exitCode).toBe(3);
    expect(w.stdout).toMatch(/^rejected: 1 violation/);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(validateSarif(written), JSON.stringify(validateSarif.errors)).toBe(true);
    expect(written.runs[0].results).toEqual([
      expect.objectContaining({ ruleId: 'verifier_failed', level: 'error', message: { text: expect.stringContaining('\\u003a:warning::injected\nlast line') }, properties: expect.objectContaining({ returncode: 4 }) }),
    ]);
    expect(written.runs[0].results[0].locations).toBeUndefined();

    const ok = await cordon(['check', '--base', inside.base, '--format', 'sarif', '--verify', 'true'], inside.repo);
    expect(ok.exitCode).toBe(0);
    const clean = JSON.parse(ok.stdout);
    expect(validateSarif(clean)).toBe(true);
    expect(clean.runs[0].results).toEqual([]);
  });

  it('sarif: a verifier command holding `##[`, a bidi override or a C1 control reaches stdout escaped, and parses back the same', async () => {
    const inside = rangeRepo(true);
    // The agent wrote the verifier (or .cordon.json); SARIF carries its command raw in two properties.
    const command = `sh -c 'exit 1' "##[error]forged" \u202etxt.exe \u009b31m`;
    const r = await cordon(['check', '--base', inside.base, '--format', 'sarif', '--verify', command], inside.repo);
    expect(r.exitCode).toBe(3);
    // Found by a hostile-input probe: JSON.stringify left `##[` (a workflow command anywhere on a
    // runner's log line), U+202E and U+009B raw in `properties.command` and `runs[0].properties.verifiers`.
    expect(r.stdout).not.toContain('##[');
    expect(r.stdout).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    const log = JSON.parse(r.stdout);
    expect(validateSarif(log), JSON.stringify(validateSarif.errors)).toBe(true);
    expect(log.runs[0].results[0].properties.command).toBe(command);
    expect(log.runs[0].properties.verifiers[0].command).toBe(command);
  });

  it('junit: well-formed XML, one testcase per verifier, failure carries the output tail', async () => {
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testcase' || name === 'testsuite' });
    const inside = rangeRepo(true);
    const r = await cordon(['check', '--base', inside.base, '--format', 'junit'], inside.repo);
    expect(r.exitCode).toBe(3);
    expect(XMLValidator.validate(r.stdout)).toBe(true);
    const doc = parser.parse(r.stdout);
    const [verifiers, envelope] = doc.testsuites.testsuite;
    expect(verifiers).toMatchObject({ name: 'cordon verifiers', tests: '2', failures: '1' });
    expect(verifiers.testcase.map((c: { name: string }) => c.name)).toEqual(['true', NASTY]);
    expect(verifiers.testcase[0].failure).toBeUndefined();
    expect(verifiers.testcase[1].failure).toMatchObject({ message: 'verifier failed (exit 4)', type: 'exit 4' });
    expect(verifiers.testcase[1].failure['#text']).toContain('50% fail <b>&amp;\n\\u003a:warning::injected\nlast line');
    expect(envelope.testcase[0]).toMatchObject({ name: 'policy' });
    expect(envelope.testcase[0].failure).toBeUndefined();

    const outside = rangeRepo(false);
    const o = await cordon(['check', '--base', outside.base, '--format', 'junit'], outside.repo);
    expect(o.exitCode).toBe(3);
    const skipped = parser.parse(o.stdout);
    expect(skipped.testsuites).toMatchObject({ tests: '2', failures: '1', skipped: '1' });
    expect(skipped.testsuites.testsuite[0].testcase[0].skipped).toMatchObject({ message: 'not run: the policy audit failed' });
    expect(skipped.testsuites.testsuite[1].testcase[0].failure['#text']).toContain('path_outside_policy: path outside policy: README.md');
  });

  it('junit: a verifier stopped by a limit names the limit, as the violation does', async () => {
    const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testcase' || name === 'testsuite' });
    const inside = rangeRepo(true);
    const r = await cordon(['check', '--base', inside.base, '--format', 'junit', '--verify', 'sleep 5', '--verify-timeout', '0.5'], inside.repo);
    expect(r.exitCode).toBe(3);
    const [verifiers] = parser.parse(r.stdout).testsuites.testsuite;
    expect(verifiers.testcase[0].failure).toMatchObject({ message: 'verifier failed (timeout after 0.5 s)', type: 'timeout after 0.5 s' });
  });

  it('--json stays the audit record and refuses --format (exit 2); a bad format is refused', async () => {
    const inside = rangeRepo(true);
    const j = await cordon(['check', '--base', inside.base, '--json', '--verify', 'true'], inside.repo);
    expect(j.exitCode).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ passed: true, mode: 'range' });
    expect((await cordon(['check', '--base', inside.base, '--json', '--format', 'sarif'], inside.repo)).exitCode).toBe(2);
    expect((await cordon(['check', '--base', inside.base, '--format', 'xml'], inside.repo)).exitCode).toBe(2);
  });
});
