import { describe, expect, it } from 'vitest';
import { dashesCorrection, takesCommandAfterDashes } from '../../src/cli/command-after-dashes.js';

// The corrected command line for an unknown flag that belongs to the command run after `--`
// (cli/command-after-dashes.ts), from what oclif's NonExistentFlagsError keeps of the parse; the
// real commands are driven in test/cli/oclif-errors.test.ts.

const FLAGS = { hint: { type: 'option' }, verbose: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', char: 'h' } };

/** The refusal oclif throws for `argv` (`flags`: the unknown ones). */
const refusal = (argv: string[], flags: string[]) => Object.assign(new Error(`Nonexistent flag: ${flags.join(', ')}`), { flags, parse: { input: { argv, flags: FLAGS } } });

const corrected = (argv: string[], flags: string[]) => dashesCorrection(refusal(argv, flags), 'cordon control run');

describe('dashesCorrection', () => {
  it('puts -- before the first word that is no cordon flag or flag value', () => {
    expect(corrected(['ls', '-d', '/tmp'], ['-d'])).toBe('cordon control run -- ls -d /tmp');
    expect(corrected(['--hint', 'memory:low', '--verbose', 'ls', '-d'], ['-d'])).toBe('cordon control run --hint memory:low --verbose -- ls -d');
    expect(corrected(['--hint=memory:low', 'ls', '-d'], ['-d'])).toBe('cordon control run --hint=memory:low -- ls -d');
  });

  it('quotes what a POSIX shell would split or expand', () => {
    expect(corrected(['sh', '-c', 'echo "$HOME" it\'s'], ['-c'])).toBe(`cordon control run -- sh -c 'echo "$HOME" it'"'"'s'`);
  });

  it('guesses nothing when a flag before the command is unknown, a -- is there, or the error is another', () => {
    expect(corrected(['--bogus', 'ls', '-d'], ['--bogus', '-d'])).toBeUndefined();
    expect(corrected(['--constructor', 'ls', '-d'], ['--constructor', '-d'])).toBeUndefined();
    expect(corrected(['ls', '--', '-d'], ['-d'])).toBeUndefined();
    expect(dashesCorrection(new Error('Nonexistent flag: -d'), 'cordon control run')).toBeUndefined();
    expect(dashesCorrection(undefined, 'cordon control run')).toBeUndefined();
  });
});

describe('takesCommandAfterDashes', () => {
  it('reads the static property a command class declares', () => {
    expect(takesCommandAfterDashes(class { static commandAfterDashes = true; })).toBe(true);
    expect(takesCommandAfterDashes(class {})).toBe(false);
    expect(takesCommandAfterDashes(undefined)).toBe(false);
  });
});
