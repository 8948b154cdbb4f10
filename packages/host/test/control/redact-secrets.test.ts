import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';

// `cordon control run -- curl -H 'Authorization: Bearer <token>' …` kept the whole command in
// <data>/logs/cordon.log and <data>/control/runs.jsonl (and --json printed it): the project's
// standard is "secrets never in argv, logs or printed URLs". Both routes now write the command
// with its secrets as `***` (src/output/redact.ts), and the command still gets them.

let sandbox: Sandbox;
beforeEach(() => (sandbox = makeSandbox('cordon-control-redact-')));
afterEach(() => sandbox.cleanup());

const routes = [
  { name: 'fast route', env: {} },
  { name: 'oclif route', env: { CORDON_NO_FAST_ROUTE: '1' } },
];

const SECRETS = ['abc123secretvalue', 'abc.def', 'hunter2secret', 'ghp_16C7e42F292c6912E7710c838347Ae178B4a', 'pa55word', 'AKIAIOSFODNN7EXAMPLE'];

describe.each(routes)('control run with secrets in its command ($name)', ({ env }) => {
  it('runs the command with the real arguments and writes them as *** in cordon.log, runs.jsonl, stderr and --json', async () => {
    const out = join(sandbox.root, 'argv.txt');
    const args = ['x-token=abc123secretvalue', 'Authorization: Bearer abc.def', '--password', 'hunter2secret', 'https://me:pa55word@example.com/x', 'GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a', 'AKIAIOSFODNN7EXAMPLE', 'plain', '/tmp/3f2a9c0e5b7d4e1f2a3b4c5d6e7f8a9b0c1d2e3f'];
    // The command writes the arguments it got, one per line, to argv.txt.
    const argv = ['sh', '-c', 'printf "%s\\n" "$@" > "$0"', out, ...args];
    const r = await runCordon(['control', 'run', '--verbose', '--json', '--', ...argv], { cwd: sandbox.root, env: { ...sandbox.env, CORDON_LOG_LEVEL: 'debug', ...env } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(args.map((a) => `${a}\n`).join(''));

    const shown = ['sh', '-c', 'printf "%s\\n" "$@" > "$0"', out, 'x-token=***', 'Authorization: Bearer ***', '--password', '***', 'https://***@example.com/x', 'GITHUB_TOKEN=***', 'AKIA***', 'plain', '/tmp/3f2a9c0e5b7d4e1f2a3b4c5d6e7f8a9b0c1d2e3f'];
    const log = readFileSync(join(sandbox.dataDir, 'logs/cordon.log'), 'utf8');
    const runs = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8');
    for (const secret of SECRETS) {
      expect(log, secret).not.toContain(secret);
      expect(runs, secret).not.toContain(secret);
      expect(r.stderr, secret).not.toContain(secret);
      expect(r.stdout, secret).not.toContain(secret);
    }
    const unguarded = log
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.message === 'control run: unguarded (no enforce backend answered)');
    expect(unguarded.at(-1)).toMatchObject({ argv: shown });
    const record = JSON.parse(runs.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(record).toMatchObject({ argv: shown, command: shown.join(' '), exit_code: 0 });
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual(record);
  });

  // Single-letter credential flags mean a secret only for their program: a stand-in `curl` and
  // `mysql` (named so, anywhere on disk) get the real arguments, the records show `***`.
  it.each([
    { program: 'curl', args: ['-sS', '-u', 'admin:hunter2secret', 'https://example.com/x'], shown: ['-sS', '-u', 'admin:***', 'https://example.com/x'] },
    { program: 'mysql', args: ['-u', 'root', '-phunter2secret', '-P', '3306', 'db'], shown: ['-u', 'root', '-p***', '-P', '3306', 'db'] },
  ])('runs $program with its real password and writes it as *** in cordon.log, runs.jsonl, stderr and --json', async ({ program, args, shown }) => {
    const bin = sandbox.dir('bin');
    const out = join(sandbox.root, 'argv.txt');
    const stub = join(bin, program);
    writeFileSync(stub, `#!/bin/sh\nprintf "%s\\n" "$@" > '${out}'\n`);
    chmodSync(stub, 0o755);
    const r = await runCordon(['control', 'run', '--verbose', '--json', '--', stub, ...args], { cwd: sandbox.root, env: { ...sandbox.env, CORDON_LOG_LEVEL: 'debug', ...env } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(args.map((a) => `${a}\n`).join(''));

    const log = readFileSync(join(sandbox.dataDir, 'logs/cordon.log'), 'utf8');
    const runs = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8');
    for (const text of [log, runs, r.stderr, r.stdout]) expect(text).not.toContain('hunter2secret');
    const record = JSON.parse(runs.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(record).toMatchObject({ argv: [stub, ...shown], command: [stub, ...shown].join(' '), exit_code: 0 });
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual(record);
    const unguarded = log
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.message === 'control run: unguarded (no enforce backend answered)');
    expect(unguarded.at(-1)).toMatchObject({ argv: [stub, ...shown] });
  });

  // The same through wrappers that run the program: real env -S, flock and find.
  it.each([
    { name: 'env -S', wrapper: (stub: string) => ['env', '-S', `${stub} -u root`], args: ['-phunter2secret', 'db'], shown: ['-p***', 'db'] },
    { name: 'flock', wrapper: (stub: string, root: string) => ['flock', '-w', '5', join(root, 'lock'), stub], args: ['-phunter2secret', 'db'], shown: ['-p***', 'db'] },
    { name: 'find -exec', wrapper: (stub: string, root: string) => ['find', root, '-maxdepth', '0', '-exec', stub], args: ['-phunter2secret', ';'], shown: ['-p***', ';'] },
  ])('runs mysql through $name with its real password and writes it as *** in cordon.log and runs.jsonl', async ({ wrapper, args, shown }) => {
    const bin = sandbox.dir('bin');
    const out = join(sandbox.root, 'argv.txt');
    const stub = join(bin, 'mysql');
    writeFileSync(stub, `#!/bin/sh\nprintf "%s\\n" "$@" > '${out}'\n`);
    chmodSync(stub, 0o755);
    const argv = [...wrapper(stub, sandbox.root), ...args];
    const r = await runCordon(['control', 'run', '--verbose', '--json', '--', ...argv], { cwd: sandbox.root, env: { ...sandbox.env, CORDON_LOG_LEVEL: 'debug', ...env } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('-phunter2secret\n');

    const log = readFileSync(join(sandbox.dataDir, 'logs/cordon.log'), 'utf8');
    const runs = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8');
    for (const text of [log, runs, r.stderr, r.stdout]) expect(text).not.toContain('hunter2secret');
    const record = JSON.parse(runs.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(record).toMatchObject({ argv: [...wrapper(stub, sandbox.root), ...shown], exit_code: 0 });
  });

  // A hostile-input probe: `env MYSQL_PWD=… OPENAI_KEY=…` and a Slack webhook URL were kept
  // verbatim; names that say PWD, PASS, AUTH or end in _KEY are secrets too now.
  it('writes MYSQL_PWD=, OPENAI_KEY= and a Slack webhook secret as *** in cordon.log and runs.jsonl', async () => {
    const hook = 'https://hooks.slack.com/services/T000/B000/hunter47XXXXXXXXXXXXXXXX';
    const r = await runCordon(['control', 'run', '--', 'env', 'MYSQL_PWD=hunter31', 'OPENAI_KEY=hunter42', 'true', hook], { cwd: sandbox.root, env: { ...sandbox.env, CORDON_LOG_LEVEL: 'debug', ...env } });
    expect(r.exitCode, r.stderr).toBe(0);
    const log = readFileSync(join(sandbox.dataDir, 'logs/cordon.log'), 'utf8');
    const runs = readFileSync(join(sandbox.dataDir, 'control/runs.jsonl'), 'utf8');
    for (const secret of ['hunter31', 'hunter42', 'hunter47']) {
      expect(log, secret).not.toContain(secret);
      expect(runs, secret).not.toContain(secret);
      expect(r.stderr, secret).not.toContain(secret);
    }
    const record = JSON.parse(runs.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(record).toMatchObject({ argv: ['env', 'MYSQL_PWD=***', 'OPENAI_KEY=***', 'true', 'https://hooks.slack.com/services/T000/B000/***'], exit_code: 0 });
  });

  it('shows a secret in a command that cannot start as *** in the error', async () => {
    const r = await runCordon(['control', 'run', '--', 'https://me:pa55word@example.com/x'], { cwd: sandbox.root, env: { ...sandbox.env, ...env } });
    expect(r.exitCode).toBe(127);
    expect(r.stderr).toBe("cordon control run: cannot start 'https://***@example.com/x': no such file\n");
  });
});
