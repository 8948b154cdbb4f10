import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { goneProgram } from '../../src/install-hooks/gone-program.js';

// What an old hook command ran that is no longer there, read from each form install writes
// (install-hooks/quote/), with real files: a path that exists is never said to be gone.

let dir: string;
let script: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cordon-gone-'));
  mkdirSync(join(dir, "Ann O'Neil"));
  script = join(dir, "Ann O'Neil", 'run.cjs');
  writeFileSync(script, '');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const posix = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;
const powershell = (word: string) => `'${word.replace(/'/g, "''")}'`;

describe('goneProgram', () => {
  it('POSIX and PowerShell forms: an existing script and node are not gone; a missing one is named', () => {
    expect(goneProgram(`${posix(process.execPath)} ${posix(script)} hook --agent codex`)).toBeUndefined();
    expect(goneProgram(`& ${powershell(process.execPath)} ${powershell(script)} hook --agent codex`)).toBeUndefined();
    const missing = join(dir, "Ann O'Neil", 'old', 'run.cjs');
    expect(goneProgram(`${posix(process.execPath)} ${posix(missing)} hook --agent codex`)).toEqual({ what: 'cordon', path: missing });
    expect(goneProgram(`& ${powershell(process.execPath)} ${powershell(missing)} hook --agent codex`)).toEqual({ what: 'cordon', path: missing });
    expect(goneProgram(`${join(dir, 'node')} ${script} hook --agent codex`.replace(script, posix(script)))).toEqual({ what: 'node', path: join(dir, 'node') });
    expect(goneProgram(`${join(dir, 'bin/cordon')} hook --agent gemini`)).toEqual({ what: 'cordon', path: join(dir, 'bin/cordon') });
  });

  it('says nothing it cannot read: a bare name, the cmd.exe form, an unclosed quote', () => {
    expect(goneProgram('cordon hook --agent codex')).toBeUndefined();
    expect(goneProgram(`"${join(dir, 'x', 'node')}" ^"${join(dir, 'x', 'run.cjs')}^" hook --agent codex`)).toBeUndefined();
    expect(goneProgram(`'${join(dir, 'x')} hook`)).toBeUndefined();
  });
});
