import { describe, expect, it } from 'vitest';
import { dashesCorrection, takesCommandAfterDashes } from '../../src/cli/command-after-dashes.js';

// The corrected command line for a command to run given without the `--` before it
// (cli/command-after-dashes.ts), from the arguments and the cordon command's flags as oclif's
// manifest describes them; the real commands are driven in test/cli/oclif-errors.test.ts.

const FLAGS = { hint: { type: 'option' }, verbose: { type: 'boolean' }, json: { type: 'boolean' }, install: { type: 'boolean', allowNo: true }, help: { type: 'boolean', char: 'h' } };

const corrected = (argv: string[]) => dashesCorrection(argv, FLAGS, 'cordon control run')?.line;

describe('dashesCorrection', () => {
  it('puts -- before the first word that is no cordon flag or flag value', () => {
    expect(corrected(['ls', '-d', '/tmp'])).toBe('cordon control run -- ls -d /tmp');
    expect(corrected(['--hint', 'memory:low', '--verbose', 'ls', '-d'])).toBe('cordon control run --hint memory:low --verbose -- ls -d');
    expect(corrected(['--hint=memory:low', 'ls', '-d'])).toBe('cordon control run --hint=memory:low -- ls -d');
    expect(corrected(['--no-install', '-h', 'ls'])).toBe('cordon control run --no-install -h -- ls');
    expect(dashesCorrection(['--json', 'ls', '--json'], FLAGS, 'cordon control run')).toEqual({ line: 'cordon control run --json -- ls --json', own: ['--json'] });
  });

  it("gives every word after the command's first to the command: cordon's flags, a later --, or none at all", () => {
    expect(corrected(['ls', '--verbose'])).toBe('cordon control run -- ls --verbose');
    expect(corrected(['ls', '--hint', 'memory:low'])).toBe('cordon control run -- ls --hint memory:low');
    expect(corrected(['ls', '--', '-d'])).toBe('cordon control run -- ls -- -d');
    expect(corrected(['ls'])).toBe('cordon control run -- ls');
  });

  it('quotes what a POSIX shell would split or expand', () => {
    expect(corrected(['sh', '-c', 'echo "$HOME" it\'s'])).toBe(`cordon control run -- sh -c 'echo "$HOME" it'"'"'s'`);
  });

  it('guesses nothing when the -- comes first, a flag before the command is unknown, or there is no command', () => {
    expect(corrected(['--', 'ls', '-d'])).toBeUndefined();
    expect(corrected(['--verbose', '--', 'ls'])).toBeUndefined();
    expect(corrected(['--bogus', 'ls', '-d'])).toBeUndefined();
    expect(corrected(['--constructor', 'ls', '-d'])).toBeUndefined();
    expect(corrected(['--no-verbose', 'ls'])).toBeUndefined();
    expect(corrected(['--hint', 'memory:low'])).toBeUndefined();
    expect(corrected([])).toBeUndefined();
  });
});

describe('takesCommandAfterDashes', () => {
  it('reads the static property a command class declares', () => {
    expect(takesCommandAfterDashes(class { static commandAfterDashes = true; })).toBe(true);
    expect(takesCommandAfterDashes(class {})).toBe(false);
    expect(takesCommandAfterDashes(undefined)).toBe(false);
  });
});
