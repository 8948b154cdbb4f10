import { realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runVerifiers, splitCommand, TRUNCATION_MARKER, failureReason } from '../../src/envelope/index.js';
import { verifySpecProblem } from '../../src/envelope/verify/spec.js';
import { tempDir, write } from './support.js';

const spec = (commands: string[], extra: { timeout_seconds?: number; output_cap?: number } = {}) => ({ commands, timeout_seconds: 300, output_cap: 4 * 1024 * 1024, ...extra });

describe('verifiers (the BEKO2210/SkillQuarry cordon V6–V7)', () => {
  it('V6: refuses unbalanced quotes, blank commands, an empty executable, 4,097 characters and 9 commands', () => {
    expect(() => splitCommand("'")).toThrow(/No closing quotation/);
    expect(() => splitCommand('   ')).toThrow(/blank/);
    expect(() => splitCommand("''")).toThrow(/empty executable/);
    expect(() => splitCommand(`x${' '.repeat(4096)}`)).toThrow(/longer than 4096/);
    expect(() => splitCommand('FOO=1 true')).toThrow('invalid --verify command "FOO=1 true": "FOO=1" is an environment assignment, which only a shell understands (verifiers run without one); write `env FOO=1 true`');
    expect(() => splitCommand('A=1 _B=x npm test')).toThrow(/"A=1" is an environment assignment.*write `env A=1 _B=x npm test`$/);
    expect(() => splitCommand('FOO=1')).toThrow(/write `env FOO=1 <command>`$/);
    // Not assignments: a path, a name that is not an identifier, `=` later in the argv.
    expect(splitCommand('./FOO=1 x')).toEqual(['./FOO=1', 'x']);
    expect(splitCommand('1A=2')).toEqual(['1A=2']);
    expect(splitCommand('env FOO=1 true')).toEqual(['env', 'FOO=1', 'true']);
    expect(verifySpecProblem({ ...spec([]), commands: 'true' })).toMatch(/not a list/);
    expect(verifySpecProblem(spec(Array(9).fill('true')))).toMatch(/too many --verify commands: 9 > 8/);
    expect(verifySpecProblem(spec(Array(8).fill('true')))).toBeUndefined();
  });

  it('splits POSIX shell words without a shell: quotes, escapes, # is not a comment', () => {
    expect(splitCommand(`node -e "console.log('a b')" x\\ y #z`)).toEqual(['node', '-e', "console.log('a b')", 'x y', '#z']);
  });

  it('"true && false" runs true with two arguments and passes (no shell)', async () => {
    const [r] = await runVerifiers(spec(['true && false']), { cwd: tempDir() });
    expect(r).toMatchObject({ passed: true, argv: ['true', '&&', 'false'], returncode: 0 });
  });

  it('run in order, all of them, from the given cwd with the caller environment', async () => {
    const cwd = tempDir('verify');
    const results = await runVerifiers(spec(['sh -c "pwd; echo $CORDON_VERIFY_MARK"', 'false', 'sh -c "echo third"']), { cwd, env: { ...process.env, CORDON_VERIFY_MARK: 'seen' } });
    expect(results.map((r) => r.passed)).toEqual([true, false, true]);
    expect(results[0]!.stdout).toBe(`${realpathSync(cwd)}\nseen\n`);
    expect(failureReason(results[1]!)).toBe('exit 1');
    expect(results[2]!.stdout).toBe('third\n');
  });

  it('a relative executable resolves from the repository root', async () => {
    const cwd = tempDir('rel');
    write(cwd, { 'scripts/ok.sh': '#!/bin/sh\necho from-script\n' });
    const { chmodSync } = await import('node:fs');
    chmodSync(`${cwd}/scripts/ok.sh`, 0o755);
    const [r] = await runVerifiers(spec(['./scripts/ok.sh']), { cwd });
    expect(r).toMatchObject({ passed: true, stdout: 'from-script\n' });
  });

  it('V7: timeout, output limit, and truncated evidence with the marker', async () => {
    const cwd = tempDir();
    const [slow] = await runVerifiers(spec(['sleep 5'], { timeout_seconds: 0.03 }), { cwd });
    expect(slow).toMatchObject({ passed: false, timed_out: true });
    expect(failureReason(slow!)).toBe('timeout');
    expect(failureReason(slow!, { timeout_seconds: 0.03, output_cap: 1024 })).toBe('timeout after 0.03 s');
    const [loud] = await runVerifiers(spec(['node -e "process.stdout.write(\'x\'.repeat(1000))"'], { output_cap: 8 }), { cwd });
    expect(loud).toMatchObject({ passed: false, output_limited: true });
    expect(failureReason(loud!)).toBe('output limit');
    expect(failureReason(loud!, { timeout_seconds: 600, output_cap: 8 })).toBe('output limit of 8 bytes');
    const [long] = await runVerifiers(spec(['node -e "process.stdout.write(\'y\'.repeat(20000))"'], { output_cap: 30_000 }), { cwd });
    expect(long!.passed).toBe(true);
    // The first and the last 8 KiB, the middle counted beside the text (verify/evidence.ts), not in it.
    expect(long!.stdout).toBe('y'.repeat(16384));
    expect(long!.stdout_cut).toEqual({ head_bytes: 8192, left_out_bytes: 20000 - 16384 });
    expect(long!.stdout.includes(TRUNCATION_MARKER)).toBe(false);
  });

  it('a verifier that cannot start is a recorded failure, not an error', async () => {
    const [r] = await runVerifiers(spec(['cordon-missing-verifier --flag']), { cwd: tempDir() });
    expect(r).toMatchObject({ passed: false, returncode: null });
    expect(r!.start_error).toMatch(/cannot start 'cordon-missing-verifier'/);
    expect(failureReason(r!)).toBe('cannot start');
  });
});
