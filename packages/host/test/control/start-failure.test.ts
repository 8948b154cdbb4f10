import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';

// `cordon control run -- CMD` whose command cannot start said `cannot start /tmp: EACCES` (a
// directory) or `cannot start foo: ENOENT`, where verifiers said `not found on PATH`. Both routes
// now say why in the words every command uses (src/process/start-failure.ts), with the shells'
// statuses: 127 not found, 126 found but not executable. An empty program name (`-- ''`) said
// `cannot start : ENOENT`; it is bad input now, refused the same way on both routes.

let sandbox: Sandbox;
beforeEach(() => (sandbox = makeSandbox('cordon-control-start-')));
afterEach(() => sandbox.cleanup());

const routes = [
  { name: 'fast route', env: {} },
  { name: 'oclif route', env: { CORDON_NO_FAST_ROUTE: '1' } },
];

describe.each(routes)('control run of a command that cannot start ($name)', ({ env }) => {
  const run = (args: string[], cwd = sandbox.root) => runCordon(['control', 'run', '--', ...args], { cwd, env: { ...sandbox.env, ...env } });

  it('a directory, a missing name, a missing path, a file without execute permission, a missing interpreter', async () => {
    const dir = sandbox.dir('work');
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'plain.sh'), 'echo hi\n', { mode: 0o644 });
    writeFileSync(join(dir, 'script'), '#!/nonexistent/interpreter\n', { mode: 0o755 });
    const cases: Array<[string, string, number]> = [
      [dir, `cannot start '${dir}': is a directory`, 126],
      ['./src', "cannot start './src': is a directory", 126],
      ['cordon-no-such-command', "cannot start 'cordon-no-such-command': not found on PATH", 127],
      ['./missing', "cannot start './missing': no such file", 127],
      ['./plain.sh', "cannot start './plain.sh': not executable", 126],
      ['./script', "cannot start './script': its interpreter /nonexistent/interpreter (the #! line) was not found", 127],
    ];
    for (const [command, message, status] of cases) {
      const r = await run([command, 'arg'], dir);
      expect({ status: r.exitCode, stderr: r.stderr, stdout: r.stdout }, command).toEqual({ status, stderr: `cordon control run: ${message}\n`, stdout: '' });
    }
  });

  it("an empty program name (-- '') is bad input, refused before anything starts (exit 2), naming it", async () => {
    for (const args of [[''], ['', 'x']]) {
      const r = await run(args);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain("the program name after -- is empty (''): give the command to run, e.g. `cordon control run -- npm test`");
      expect(r.stderr).toContain('CORDON_BAD_INPUT');
      expect(r.stderr).not.toContain('cannot start');
    }
    const json = await runCordon(['control', 'run', '--json', '--', ''], { cwd: sandbox.root, env: { ...sandbox.env, ...env } });
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'CORDON_BAD_INPUT', details: { argv: [''] } });
  });
});
