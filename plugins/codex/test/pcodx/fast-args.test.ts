import { describe, expect, it } from 'vitest';
import { parseFastArgs, runFastCommand } from '../../src/pcodx/fast.js';

// The flags the fast route of `pcodx show|ids|turn` takes itself; everything else is oclif's to
// parse and report (fast-route.test.ts runs both routes on real ledgers).
describe('parseFastArgs', () => {
  it('takes each command\'s own flags, as --name VALUE and --name=VALUE, in any order', () => {
    expect(parseFastArgs('pcodx:show', [])).toEqual({});
    expect(parseFastArgs('pcodx:show', ['--roles', '--json', '--db', '/x/y.sqlite3', '--session=main', '--cwd', '.'])).toEqual({ roles: true, json: true, db: '/x/y.sqlite3', session: 'main', cwd: '.' });
    expect(parseFastArgs('pcodx:ids', ['--db=a=b', '--json'])).toEqual({ db: 'a=b', json: true });
    // Both text flags pass here: the command's own rule refuses the pair, on either route.
    expect(parseFastArgs('pcodx:turn', ['--text', 'fix it', '--text-file=notes.md'])).toEqual({ text: 'fix it', 'text-file': 'notes.md' });
    expect(parseFastArgs('pcodx:turn', ['--text-file', 'prompt.md', '--session', 's'])).toEqual({ 'text-file': 'prompt.md', session: 's' });
    expect(parseFastArgs('pcodx:turn', ['--text-file', '-'])).toEqual({ 'text-file': '-' });
  });

  it('the topic itself takes only the reference spelling of a command this route runs; anything else goes to oclif untouched', async () => {
    // No api is ever asked for: each of these is handed back before the ledger is opened.
    const api = new Proxy({}, { get: () => { throw new Error('the api was used'); } }) as never;
    for (const args of [['--db', 'x'], ['--verbose', 'show'], ['--db', 'x', 'init'], ['--db', 'x', 'show', '--bogus'], ['--help'], []]) {
      expect(await runFastCommand('pcodx', args, api), args.join(' ')).toBe('fallback');
    }
    expect(await runFastCommand('pcodx:compact', ['--from', 'msg1'], api)).toBe('fallback');
  });

  it('hands every other form to oclif', () => {
    const forms: Array<[string, string[]]> = [
      ['pcodx:show', ['--help']],
      ['pcodx:show', ['-h']],
      ['pcodx:show', ['--text', 'x']],
      ['pcodx:ids', ['--roles']],
      ['pcodx:show', ['extra']],
      ['pcodx:show', ['--']],
      ['pcodx:show', ['--json', '--json']],
      ['pcodx:show', ['--db', 'a', '--db=b']],
      ['pcodx:show', ['--db']],
      ['pcodx:show', ['--db', '']],
      ['pcodx:show', ['--db=']],
      ['pcodx:show', ['--db', '--json']],
      ['pcodx:turn', ['--text', '-v']],
      ['pcodx:turn', ['--text-file=-x']],
      ['pcodx:show', ['--roles=yes']],
      ['pcodx:show', ['--no-roles']],
      ['pcodx:compact', ['--from', 'msg1']],
      ['pcodx:show', ['--constructor', 'x']],
      // A --cwd that names no directory: oclif's flag refuses it (command.ts cwdFlag).
      ['pcodx:show', ['--cwd', '/nonexistent/cordon-test-dir']],
      ['pcodx:ids', [`--cwd=${import.meta.filename}`]],
    ];
    for (const [id, args] of forms) expect(parseFastArgs(id, args), `${id} ${args.join(' ')}`).toBeUndefined();
  });
});
