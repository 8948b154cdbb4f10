import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';
import { indentedOutput } from '../../src/envelope/render.js';

// Found in the README demo (`npm run demo` step 3): a verifier's blank lines of spaces showed in the
// verdict as lines of spaces (`  $` under `cat -A`).

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-tail-space-');
});
afterEach(() => sandbox.cleanup());

describe("a verifier's output in the text verdict and the CI formats", () => {
  it('ends no line in whitespace; --json keeps what the verifier printed', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.py': 'a\n' }, sandbox.env);
    const script = join(sandbox.dir('bin'), 'fail.js');
    writeFileSync(script, "process.stdout.write('FAIL one   \\n   \\n\\t\\n  at x.js:1  \\n\\nlast\\t\\n'); process.exit(1);\n");
    const armed = await runCordon(['arm', 'w', '--allow', 'src/**', '--verify', `node ${script}`], { env: sandbox.env, cwd: repo });
    expect(armed.exitCode, armed.stderr).toBe(0);
    writeFiles(repo, { 'src/a.py': 'b\n' });
    const r = await runCordon(['check'], { env: sandbox.env, cwd: repo });
    expect(r.exitCode, r.stderr).toBe(3);
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(line, JSON.stringify(line)).not.toMatch(/\s$/);
    const from = lines.findIndex((l) => l.startsWith('violation: verifier failed'));
    expect(lines.slice(from + 1)).toEqual(['    FAIL one', '', '', '      at x.js:1', '', '    last']);
    // The CI formats show the same tail: no line of theirs ends in whitespace either (GitHub's
    // annotation encodes its line breaks as %0A; SARIF's text is JSON; JUnit's failure is XML text).
    const github = (await runCordon(['check', '--format', 'github'], { env: sandbox.env, cwd: repo })).stdout;
    const annotation = github.split('\n').find((l) => l.includes('verifier failed'))!;
    expect(annotation.split('%0A').slice(1)).toEqual(['FAIL one', '', '', '  at x.js:1', '', 'last']);
    const sarif = JSON.parse((await runCordon(['check', '--format', 'sarif'], { env: sandbox.env, cwd: repo })).stdout);
    const sarifText: string = sarif.runs[0].results.find((r: { message: { text: string } }) => r.message.text.includes('verifier failed')).message.text;
    for (const line of sarifText.split('\n')) expect(line, JSON.stringify(line)).not.toMatch(/\s$/);
    const junit = (await runCordon(['check', '--format', 'junit'], { env: sandbox.env, cwd: repo })).stdout;
    const failure = /<failure [^>]*>([^<]*)<\/failure>/.exec(junit)![1]!;
    for (const line of failure.split('\n')) expect(line, JSON.stringify(line)).not.toMatch(/\s$/);
    expect(failure).toContain('FAIL one\n');
    const json = JSON.parse((await runCordon(['check', '--json'], { env: sandbox.env, cwd: repo })).stdout);
    expect(json.verification[0].stdout).toBe('FAIL one   \n   \n\t\n  at x.js:1  \n\nlast\t\n');
  });

  it('indentedOutput: four spaces in front, trailing whitespace dropped, blank lines empty', () => {
    expect(indentedOutput(['a  ', ' \t ', '', '  b\t'])).toEqual(['    a', '', '', '      b']);
  });
});
