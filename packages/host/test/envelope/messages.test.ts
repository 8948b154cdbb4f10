import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { git, makeRepo, writeFiles } from '../../../../test/support/git.js';
import { labelLine } from '../../src/envelope/render.js';

// What the envelope commands tell a person: arm echoes the whole policy it fixed (deny globs
// included, odd names escaped), and a refusal only offers what the user can do.

let sandbox: Sandbox;
beforeEach(() => (sandbox = makeSandbox('cordon-messages-')));
afterEach(() => sandbox.cleanup());
const cordon = (args: string[], cwd: string) => runCordon(args, { env: sandbox.env, cwd });

describe('envelope messages', () => {
  it('status shows a label of several lines by its first, saying how many more and where they are', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n' }, sandbox.env);
    expect((await cordon(['arm', 'fix the parser\nsee issue 12\r\nand 13', '--allow', 'src/**'], repo)).exitCode).toBe(0);
    const lines = (await cordon(['status'], repo)).stdout.split('\n');
    expect(lines[1]).toBe('label: fix the parser (+2 more lines; cordon status --json has all of it)');
    expect(JSON.parse((await cordon(['status', '--json'], repo)).stdout).label).toBe('fix the parser\nsee issue 12\r\nand 13');
    expect(labelLine('one line')).toBe('one line');
    expect(labelLine('first\nsecond')).toBe('first (+1 more line; cordon status --json has all of it)');
    expect(labelLine('first\rsecond')).toBe('first (+1 more line; cordon status --json has all of it)');
  });

  it('arm echoes the allow and deny globs it fixed', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n' }, sandbox.env);
    const r = await cordon(['arm', 'x', '--allow', 'src/**', '--allow', 'docs/**', '--deny', 'src/secrets/**', '--deny', 'src/\u001b[2Jx'], repo);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^armed: allow src\/\*\* docs\/\*\*, deny src\/secrets\/\*\* "src\/\\u001b\[2Jx" at [0-9a-f]{12} \(0 verifiers\)/);
    expect(r.stdout).not.toContain('\u001b');
    const plain = makeRepo(sandbox.dir('plain'), { 'src/a.txt': 'a\n' }, sandbox.env);
    const p = await cordon(['arm', 'x', '--allow', 'src/**'], plain);
    expect(p.stdout).toMatch(/^armed: allow src\/\*\* at [0-9a-f]{12} \(0 verifiers\)/);
  });

  it('check --base, with no envelope armed, says the change stayed within the policy, not inside an envelope', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/app.py': 'a\n', '.cordon.json': '{"allow": ["src/**"]}\n' }, sandbox.env);
    const base = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    writeFiles(repo, { 'src/app.py': 'b\n' });
    git(repo, ['commit', '-qam', 'b'], sandbox.env);
    const r = await cordon(['check', '--base', base], repo);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`accepted: 1 changed file within the policy (baseline ${base.slice(0, 12)})`);
    writeFiles(repo, { '.gitattributes': '* -text\n' });
    git(repo, ['add', '.gitattributes'], sandbox.env);
    git(repo, ['commit', '-qm', 'attributes'], sandbox.env);
    const rejected = await cordon(['check', '--base', base, '--allow', '**'], repo);
    expect(rejected.exitCode, rejected.stderr).toBe(3);
    expect(rejected.stdout).toContain('violation: .gitattributes changed; attributes decide how git counts changes, so they cannot change in the audited commits: .gitattributes');
    expect(rejected.stdout).not.toContain('envelope');
    // The reports CI reads say the same: SARIF rule texts, JUnit's failure message, GitHub annotations.
    const formats = ['--allow', '**', '--max-files', '1'];
    const sarif = JSON.parse((await cordon(['check', '--base', base, ...formats, '--format', 'sarif'], repo)).stdout);
    const texts = [...sarif.runs[0].tool.driver.rules.map((r: { shortDescription: { text: string } }) => r.shortDescription.text), ...sarif.runs[0].results.map((r: { message: { text: string } }) => r.message.text)];
    expect(texts).toEqual(expect.arrayContaining(['More files changed than the policy allows', '.gitattributes changed in the audited commits']));
    expect(texts.filter((t: string) => t.includes('envelope'))).toEqual([]);
    const junit = (await cordon(['check', '--base', base, ...formats, '--format', 'junit'], repo)).stdout;
    expect(junit).toContain('<failure message="2 policy violations"');
    expect(junit).not.toMatch(/message="[^"]*envelope/);
    const github = await cordon(['check', '--base', base, ...formats, '--format', 'github'], repo);
    expect(github.exitCode).toBe(3);
    expect(github.stdout).not.toContain('envelope');
    // An armed envelope keeps its own words.
    const armed = makeRepo(sandbox.dir('armed'), { 'src/a.txt': 'a\n', 'src/b.txt': 'b\n' }, sandbox.env);
    expect((await cordon(['arm', 'x', '--allow', 'src/**', '--max-files', '1'], armed)).exitCode).toBe(0);
    writeFiles(armed, { 'src/a.txt': 'A\n', 'src/b.txt': 'B\n' });
    const inEnvelope = JSON.parse((await cordon(['check', '--format', 'sarif'], armed)).stdout);
    expect(inEnvelope.runs[0].tool.driver.rules.map((r: { shortDescription: { text: string } }) => r.shortDescription.text)).toEqual(['More files changed than the envelope allows']);
  });

  it('check --base with verifiers from the base\'s .cordon.json does not offer to drop them', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/app.py': 'a\n', '.cordon.json': '{"allow": ["src/**"], "verify": ["grep -qx good src/app.py"]}\n' }, sandbox.env);
    const base = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    writeFiles(repo, { 'src/app.py': 'good\n' });
    git(repo, ['commit', '-qam', 'good'], sandbox.env);
    const good = git(repo, ['rev-parse', 'HEAD'], sandbox.env).trim();
    git(repo, ['checkout', '-q', base], sandbox.env);
    const r = await cordon(['check', '--base', base, '--head', good], repo);
    expect(r.exitCode).toBe(2);
    const said = r.stderr.replace(/\s+/g, ' ');
    expect(said).toContain(`check out ${good} with a clean work tree`);
    expect(said).toContain('(the verifiers come from .cordon.json in the base commit and always run)');
    expect(said).not.toContain('drop --verify');
  });
});
