import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo } from '../../../../test/support/git.js';

// Every numeric flag goes through one parser (src/cli/number-flag.ts): its refusal names the
// flag, echoes the value as given and says the whole range, exit 2, before anything runs.

let sandbox: Sandbox;
beforeEach(() => (sandbox = makeSandbox('cordon-number-flags-')));
afterEach(() => sandbox.cleanup());

describe('numeric flags', () => {
  it('arm, run, check --base, top, export and analyze refuse a bad value echoing it with the range (exit 2)', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n' }, sandbox.env);
    const cases: Array<[string[], string]> = [
      [['arm', 'x', '--allow', 'src/**', '--verify-timeout', 'abc'], '--verify-timeout: expected a number of seconds greater than 0 and at most 604800 but received: "abc"; see `cordon arm --help`'],
      [['arm', 'x', '--allow', 'src/**', '--verify-output-cap', '9007199254740992'], '--verify-output-cap: expected a whole number of bytes from 1 to 9007199254740991 but received: "9007199254740992"; see `cordon arm --help`'],
      [['arm', 'x', '--allow', 'src/**', '--max-working-bytes', '-5'], '--max-working-bytes: expected a whole number of bytes from 0 to 9007199254740991 but received: "-5"; see `cordon arm --help`'],
      [['check', '--base', 'HEAD', '--allow', 'src/**', '--max-binary-files', 'two'], '--max-binary-files: expected an integer from 0 to 9007199254740991 but received: "two"; see `cordon check --help`'],
      [['run', 'x', '--allow', 'src/**', '--timeout', 'soon'], '--timeout: expected a number of seconds greater than 0 and at most 604800 but received: "soon"; see `cordon run --help`'],
      [['run', 'x', '--allow', 'src/**', '--max-budget-usd', '-1'], '--max-budget-usd: expected a number of US dollars greater than 0 but received: "-1"; see `cordon run --help`'],
      [['run', 'x', '--allow', 'src/**', '--max-turns', '2.5'], '--max-turns: expected an integer from 1 to 9007199254740991 but received: "2.5"; see `cordon run --help`'],
      [['run', 'x', '--allow', 'src/**', '--agent-output-cap', '0'], '--agent-output-cap: expected a whole number of bytes from 1 to 9007199254740991 but received: "0"; see `cordon run --help`'],
      [['top', '--once', '--calls', '99'], '--calls: expected an integer from 0 to 50 but received: "99"; see `cordon top --help`'],
      [['top', '--once', '--width', '5'], '--width: expected a whole number of columns from 40 to 1000 but received: "5"; see `cordon top --help`'],
      [['export', '--otlp', 'http://127.0.0.1:9', '--timeout', '0'], '--timeout: expected a whole number of seconds from 1 to 604800 but received: "0"; see `cordon export --help`'],
      [['analyze', '--burst-threshold', '0'], '--burst-threshold: expected a whole number of MiB from 1 to 9007199254740991 but received: "0"; see `cordon analyze --help`'],
    ];
    for (const [args, message] of cases) {
      const r = await runCordon(args, { cwd: repo, env: sandbox.env });
      expect([args.join(' '), r.exitCode, r.stderr]).toEqual([args.join(' '), 2, `    Error: ${message}\n    Code: CORDON_BAD_INPUT\n`]);
    }
  });
});
