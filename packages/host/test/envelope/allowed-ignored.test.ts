import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo } from '../../../../test/support/git.js';

// Issue 29 "Verifiers can be faked": with the docs' typical `--allow-ignored 'node_modules/**'`
// an agent rewrites the test runner a verifier runs to print success. Allowed is not invisible:
// the check reports the changed executables in its verdict (a note) and its JSON.

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-allowed-ignored-');
});
afterEach(() => sandbox.cleanup());

const FAILING_RUNNER = '#!/bin/sh\necho "not ok 1 broken"\necho "# fail  1"\nexit 1\n';
const FAKED_RUNNER = '#!/bin/sh\necho "# pass  60"\nexit 0\n';

function executable(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  chmodSync(path, 0o755);
}

/** A repository whose ignored node_modules and .venv hold a failing test runner, as installed. */
function project(): string {
  const dir = makeRepo(sandbox.dir('repo'), {
    '.gitignore': 'node_modules/\n.venv/\n',
    'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'tape' } }),
    'src/a.js': 'module.exports = 1;\n',
  }, sandbox.env);
  executable(join(dir, 'node_modules/tape/bin/tape'), FAILING_RUNNER);
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  symlinkSync('../tape/bin/tape', join(dir, 'node_modules/.bin/tape'));
  executable(join(dir, '.venv/bin/pytest'), FAILING_RUNNER);
  return dir;
}

async function armAndBreak(dir: string, verify: string): Promise<void> {
  const armed = await runCordon(['arm', 'fix', '--allow', 'src/**', '--allow-ignored', 'node_modules/**', '--allow-ignored', '.venv/**', '--verify', verify], { env: sandbox.env, cwd: dir });
  expect(armed.exitCode, armed.stderr).toBe(0);
  writeFileSync(join(dir, 'src/a.js'), 'module.exports = 2; // broken\n');
}

describe('changed verifier executables under --allow-ignored are reported', () => {
  it('the example: node_modules/.bin/tape rewritten while npm test verifies', async () => {
    const dir = project();
    await armAndBreak(dir, 'npm test');
    const honest = await runCordon(['check', '--json'], { env: sandbox.env, cwd: dir });
    expect(honest.exitCode).toBe(3);
    expect(JSON.parse(honest.stdout).allowed_ignored_changes).toEqual([]);
    // The agent replaces the link with a runner that always passes.
    const bin = join(dir, 'node_modules/.bin/tape');
    writeFileSync(`${bin}.new`, FAKED_RUNNER);
    chmodSync(`${bin}.new`, 0o755);
    const { renameSync } = await import('node:fs');
    renameSync(`${bin}.new`, bin);
    const text = await runCordon(['check'], { env: sandbox.env, cwd: dir });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(/note: verifier executables changed under --allow-ignored since arming: node_modules\/\.bin\/tape \(changed\)/);
    const json = await runCordon(['check', '--json'], { env: sandbox.env, cwd: dir });
    expect(JSON.parse(json.stdout).allowed_ignored_changes).toEqual([{ path: 'node_modules/.bin/tape', change: 'changed' }]);
  }, 120_000);

  it("the link's target rewritten, and a new runner placed in node_modules/.bin", async () => {
    const dir = project();
    await armAndBreak(dir, 'npm test');
    writeFileSync(join(dir, 'node_modules/tape/bin/tape'), FAKED_RUNNER);
    executable(join(dir, 'node_modules/.bin/jest'), FAKED_RUNNER);
    const json = await runCordon(['check', '--json'], { env: sandbox.env, cwd: dir });
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(json.stdout).allowed_ignored_changes).toEqual([
      { path: 'node_modules/.bin/jest', change: 'new' },
      { path: 'node_modules/tape/bin/tape', change: 'changed' },
    ]);
  }, 120_000);

  it('a verifier named by its path inside the work tree (.venv/bin/pytest), rewritten or removed', async () => {
    const dir = project();
    await armAndBreak(dir, '.venv/bin/pytest -q');
    writeFileSync(join(dir, '.venv/bin/pytest'), FAKED_RUNNER);
    let r = await runCordon(['check'], { env: sandbox.env, cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('.venv/bin/pytest (changed)');
    const { rmSync } = await import('node:fs');
    rmSync(join(dir, '.venv/bin/pytest'));
    r = await runCordon(['check', '--json'], { env: sandbox.env, cwd: dir });
    expect(r.exitCode).toBe(3);
    expect(JSON.parse(r.stdout).allowed_ignored_changes).toEqual([{ path: '.venv/bin/pytest', change: 'removed' }]);
  }, 120_000);
});
