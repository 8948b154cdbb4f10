import { describe, expect, it } from 'vitest';
import { findCommand } from '../src/shim/args.js';

describe('findCommand (shell shim)', () => {
  it('finds the -c command string the ways agents pass it', () => {
    expect(findCommand(['-c', 'ls -la'])).toEqual({ index: 1, command: 'ls -la' });
    expect(findCommand(['-i', '-c', 'pytest'])).toEqual({ index: 2, command: 'pytest' }); // pexpect (aider interactive)
    expect(findCommand(['-lc', 'make'])).toEqual({ index: 1, command: 'make' });
    expect(findCommand(['-e', '-o', 'pipefail', '-c', 'a | b', 'name', 'arg'])).toEqual({ index: 4, command: 'a | b' });
    expect(findCommand(['--norc', '-c', 'x'])).toEqual({ index: 2, command: 'x' });
    expect(findCommand(['-c', '--', '-weird'])).toEqual({ index: 2, command: '-weird' });
  });

  it('returns undefined for a shell that runs no -c command', () => {
    expect(findCommand([])).toBeUndefined();
    expect(findCommand(['-i'])).toBeUndefined();
    expect(findCommand(['script.sh', '-c'])).toBeUndefined();
    expect(findCommand(['-c'])).toBeUndefined();
  });
});
