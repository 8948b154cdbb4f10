import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandProblem, describeStartFailure, startFailureReport, startProblemReport } from '../../src/process/start-failure.js';

// One describer for a command that cannot start (src/process/start-failure.ts), used by
// verifiers, `control run`, `wrap` and `run`. Each case starts the command for real and describes
// the error the start gave: the system's code alone says EACCES for a directory and for a file
// without execute permission, and ENOENT for a missing file and for a missing interpreter.

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cordon-start-failure-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The error starting `file` in `cwd` with `env` gives (spawnSync's, the same as spawn's 'error'). */
function startError(file: string, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): NodeJS.ErrnoException {
  const r = spawnSync(file, [], { stdio: 'ignore', ...options });
  if (!r.error) throw new Error(`${file} started`);
  return r.error as NodeJS.ErrnoException;
}

function files() {
  const plain = join(dir, 'plain');
  writeFileSync(plain, 'echo hi\n', { mode: 0o644 });
  const noInterpreter = join(dir, 'no-interpreter');
  writeFileSync(noInterpreter, '#!/nonexistent/interpreter\n', { mode: 0o755 });
  const bin = join(dir, 'bin');
  mkdirSync(join(bin, 'tool-dir'), { recursive: true });
  return { plain, noInterpreter, bin };
}

describe('describeStartFailure', () => {
  it('says what is wrong, with the status a shell gives: 127 not found, 126 found but not executable', () => {
    const { plain, noInterpreter, bin } = files();
    const env = { PATH: bin };
    const cases: Array<[string, { cwd?: string; env?: NodeJS.ProcessEnv }, string, number]> = [
      ['cordon-no-such-command', { env }, 'not found on PATH', 127],
      [join(dir, 'gone'), {}, 'no such file', 127],
      ['./gone', { cwd: dir }, 'no such file', 127],
      [dir, {}, 'is a directory', 126],
      ['./bin', { cwd: dir }, 'is a directory', 126],
      ['tool-dir', { env }, `is a directory (${join(bin, 'tool-dir')})`, 126],
      [plain, {}, 'not executable', 126],
      ['./plain', { cwd: dir }, 'not executable', 126],
      [noInterpreter, {}, 'its interpreter /nonexistent/interpreter (the #! line) was not found', 127],
      [join(plain, 'x'), {}, 'a part of its path is not a directory', 126],
      ['true', { cwd: join(dir, 'gone') }, `its working directory ${join(dir, 'gone')} does not exist`, 127],
    ];
    for (const [file, where, why, status] of cases) {
      const error = startError(file, where);
      expect(describeStartFailure(file, error, where), `${file} (${error.code})`).toEqual({ why, status, code: error.code });
    }
  });

  it('codes that say enough on their own, an empty name, and anything else as the system put it', () => {
    expect(describeStartFailure('x', Object.assign(new Error('spawn x ENOEXEC'), { code: 'ENOEXEC' }))).toEqual({ why: 'not an executable format', status: 126, code: 'ENOEXEC' });
    expect(describeStartFailure('x', Object.assign(new Error('spawn x EISDIR'), { code: 'EISDIR' }))).toEqual({ why: 'is a directory', status: 126, code: 'EISDIR' });
    expect(describeStartFailure('', Object.assign(new Error('spawn ENOENT'), { code: 'ENOENT' }), { env: { PATH: dir } })).toEqual({ why: 'its name is empty', status: 127, code: 'ENOENT' });
    expect(describeStartFailure('', Object.assign(new TypeError("The argument 'file' cannot be empty"), { code: 'ERR_INVALID_ARG_VALUE' }))).toEqual({ why: 'its name is empty', status: 127, code: 'ERR_INVALID_ARG_VALUE' });
    // The plugin API's words for a code (systemErrorWords), but the two a start gives a meaning of its own.
    expect(describeStartFailure('x', Object.assign(new Error('spawn x EIO'), { code: 'EIO' }))).toEqual({ why: 'input/output error', status: 126, code: 'EIO' });
    expect(describeStartFailure('x', Object.assign(new Error('spawn x E2BIG'), { code: 'E2BIG' }))).toEqual({ why: 'its arguments and environment are too long', status: 126, code: 'E2BIG' });
    expect(describeStartFailure('x', Object.assign(new Error('spawn x EAGAIN'), { code: 'EAGAIN' }))).toEqual({ why: 'too many processes', status: 126, code: 'EAGAIN' });
    expect(describeStartFailure('x', Object.assign(new Error('spawn x ETXTBSY'), { code: 'ETXTBSY' }))).toEqual({ why: 'the file is open for writing (text file busy)', status: 126, code: 'ETXTBSY' });
    expect(describeStartFailure('x', Object.assign(new Error('spawn x EWHAT'), { code: 'EWHAT' }))).toEqual({ why: 'spawn x EWHAT', status: 126, code: 'EWHAT' });
    expect(describeStartFailure('x', new Error('no code'))).toEqual({ why: 'no code', status: 126 });
  });

  it('startFailureReport: the sentence plugins print', () => {
    expect(startFailureReport(dir, startError(dir))).toEqual({ message: `cannot start '${dir}': is a directory`, status: 126 });
  });

  it('startFailureReport and startProblemReport: a long name is cut to 200 characters, its length said, after redaction', () => {
    // Found by a probe: `cordon control run -- <5,000 characters>` printed all of them.
    const long = 'a'.repeat(5000);
    const said = `cannot start '${'a'.repeat(199)}…' (5000 characters): its name is too long`;
    for (const message of [startFailureReport(long, startError(long)).message, startProblemReport(long)!.message]) {
      expect(message.startsWith(said)).toBe(true);
      // The reason may name the PATH entry it looked in, cut as well.
      expect(message.length).toBeLessThanOrEqual(said.length + 400);
    }
    // A token at the cut is *** already: cut first, `ghp_A…` would no longer look like one.
    const token = `${'x'.repeat(190)} ghp_${'A1b2C3d4E5'.repeat(4)} ${'y'.repeat(300)}`;
    const message = startProblemReport(token)!.message;
    expect(message).toContain('ghp_***');
    expect(message).not.toContain('A1b2');
    expect(message).toContain(`(${token.length - 40 + 3} characters)`);
  });
});

describe('commandProblem (before a start)', () => {
  it('agrees with what a start says, and says nothing of a command that starts', () => {
    const { plain, bin } = files();
    expect(commandProblem('sh')).toBeUndefined();
    expect(commandProblem('cordon-no-such-command', { env: { PATH: bin } })).toEqual({ why: 'not found on PATH', status: 127, code: 'ENOENT' });
    expect(commandProblem('./src', { cwd: dir })).toMatchObject({ why: 'no such file', status: 127 });
    mkdirSync(join(dir, 'src'));
    expect(commandProblem('./src', { cwd: dir })).toMatchObject({ why: 'is a directory', status: 126 });
    expect(commandProblem(plain)).toMatchObject({ why: 'not executable', status: 126 });
    // A later PATH directory holding an executable wins, as execvp(3) goes on after EACCES.
    writeFileSync(join(dir, 'tool-dir'), '#!/bin/sh\n', { mode: 0o755 });
    expect(commandProblem('tool-dir', { env: { PATH: `${bin}:${dir}` } })).toBeUndefined();
  });

  it('reads a script\'s #! line as the kernel does: a missing or unusable interpreter is named before any start', () => {
    const { noInterpreter } = files();
    const script = (name: string, text: string) => (writeFileSync(join(dir, name), text, { mode: 0o755 }), join(dir, name));
    const missing = { why: 'its interpreter /nonexistent/interpreter (the #! line) was not found', status: 127, code: 'ENOENT' };
    expect(commandProblem(noInterpreter)).toEqual(missing);
    // What a start says agrees (the system's ENOENT alone could be the script itself).
    expect(describeStartFailure(noInterpreter, startError(noInterpreter))).toEqual(missing);
    // Blanks before the name, an argument after it, no newline at all.
    expect(commandProblem(script('spaced', '#! \t/nonexistent/sh -e\necho\n'))).toMatchObject({ why: 'its interpreter /nonexistent/sh (the #! line) was not found', status: 127 });
    expect(commandProblem(script('bare', '#!/nonexistent/sh'))).toMatchObject({ why: 'its interpreter /nonexistent/sh (the #! line) was not found' });
    // A relative interpreter is taken from the command's working directory, as execve(2) takes it.
    expect(commandProblem('./rel', { cwd: dir })).toMatchObject({ why: 'no such file' });
    script('rel', '#!./interp\n');
    expect(commandProblem('./rel', { cwd: dir })).toMatchObject({ why: 'its interpreter ./interp (the #! line) was not found' });
    mkdirSync(join(dir, 'interp'));
    expect(commandProblem('./rel', { cwd: dir })).toEqual({ why: 'its interpreter ./interp (the #! line): is a directory', status: 126, code: 'EISDIR' });
    // Interpreters that exist, a script through a script, no #! line, an empty one: nothing to say.
    expect(commandProblem(script('fine', '#!/bin/sh\ntrue\n'))).toBeUndefined();
    expect(commandProblem(script('env', '#!/usr/bin/env sh\n'))).toBeUndefined();
    expect(commandProblem(script('nested', `#!${join(dir, 'fine')}\n`))).toBeUndefined();
    expect(commandProblem(script('nested-missing', `#!${noInterpreter}\n`))).toMatchObject({ why: 'its interpreter /nonexistent/interpreter (the #! line) was not found', status: 127 });
    expect(commandProblem(script('plain-text', 'echo hi\n'))).toBeUndefined();
    expect(commandProblem(script('empty-line', '#!\n'))).toBeUndefined();
  });
});
