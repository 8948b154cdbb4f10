import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countFailures, normaliseShellCommand, type EarlierEnd } from '../../src/loop-breaker/index.js';

// Issue 31 §2: the counting rule. `earlier` is newest first, as the hook reads the markers.
const end = (command: string, exit_status: 'ok' | 'failed' | 'unknown', extra: Partial<EarlierEnd> = {}): EarlierEnd => ({ event: 'tool_end', tool: 'shell', command, exit_status, ...extra });
const edit: EarlierEnd = { event: 'tool_end', tool: 'edit', command: '/w/src/a.ts', exit_status: 'ok' };

describe('countFailures', () => {
  it('the issue example: the third consecutive failure of one command counts 3', () => {
    expect(countFailures('false', [end('false', 'failed'), end('false', 'failed')])).toEqual({ failures: 3, answeredBefore: false });
  });

  it('an edit, a read or another command in between does not reset the count', () => {
    const earlier = [edit, end('npm test', 'ok'), end('false', 'failed'), { event: 'tool_start', tool: 'shell', command: 'false' }, edit, end('false', 'failed')];
    expect(countFailures('false', earlier).failures).toBe(3);
  });

  it('the same command in another working directory is passed over; a marker or call without a cwd matches any', () => {
    const earlier = [end('make', 'failed', { cwd: '/w/b' }), end('make', 'failed', { cwd: '/w/a' }), end('make', 'ok', { cwd: '/w/b' }), end('make', 'failed')];
    expect(countFailures('make', earlier, '/w/a').failures).toBe(3);
    expect(countFailures('make', earlier, '/w/b').failures).toBe(2);
    expect(countFailures('make', earlier).failures).toBe(3);
  });

  it('a success of the same command ends the run', () => {
    expect(countFailures('false', [end('false', 'failed'), end('false', 'ok'), end('false', 'failed'), end('false', 'failed')]).failures).toBe(2);
  });

  it('an outcome the agent did not tell ends the run too (never a guessed failure)', () => {
    expect(countFailures('false', [end('false', 'failed'), end('false', 'unknown'), end('false', 'failed')]).failures).toBe(2);
  });

  it('white space and quoting do not make another command; what a word holds does', () => {
    expect(countFailures(`sh -c 'exit 1'`, [end(`sh  -c "exit 1"`, 'failed'), end(`  sh -c exit\\ 1 `, 'failed')]).failures).toBe(3);
    expect(countFailures(`echo 'a  b'; false`, [end('echo a b; false', 'failed'), end(`echo "a  b"; false`, 'failed')]).failures).toBe(2);
  });

  it('denied calls, starts and non-shell tools with the same text are passed over', () => {
    const earlier: EarlierEnd[] = [
      { event: 'tool_denied', tool: 'shell', command: 'false', exit_status: 'denied' },
      { event: 'tool_end', tool: 'other', command: 'false', exit_status: 'ok' },
      end('false', 'failed'),
    ];
    expect(countFailures('false', earlier).failures).toBe(2);
  });

  it('a marker the breaker answered carries the run so far: the walk stops there', () => {
    expect(countFailures('false', [end('false', 'failed'), end('false', 'failed', { loop_failures: 3 }), end('false', 'ok')])).toEqual({ failures: 5, answeredBefore: true });
  });

  it('damaged markers (no command, odd loop_failures) are read as far as they tell', () => {
    const earlier: EarlierEnd[] = [{ event: 'tool_end', tool: 'shell', exit_status: 'failed' }, end('false', 'failed', { loop_failures: 'x' }), end('false', 'failed', { loop_failures: -2 })];
    expect(countFailures('false', earlier)).toEqual({ failures: 3, answeredBefore: false });
  });

  it('property: one plus the failures of the command since its last other outcome', () => {
    const entry = fc.record({ command: fc.constantFrom('false', 'make', 'false '), status: fc.constantFrom('ok' as const, 'failed' as const, 'unknown' as const), edit: fc.boolean() });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 30 }), (entries) => {
        const earlier = entries.map((e) => (e.edit ? edit : end(e.command, e.status)));
        let expected = 1;
        for (const e of entries) {
          if (e.edit || normaliseShellCommand(e.command) !== 'false') continue;
          if (e.status !== 'failed') break;
          expected++;
        }
        expect(countFailures('false', earlier).failures).toBe(expected);
      }),
    );
  });
});

describe('normaliseShellCommand', () => {
  it.each([
    [`sh  -c "exit 1"`, `sh -c 'exit 1'`],
    ['  false\t', 'false'],
    ['cd x &&  npm test', `cd x '&&' npm test`],
    [`echo 'it''s'`, 'echo its'],
    // shlex cannot split an unclosed quote: white space collapsed only.
    [`echo "a   b`, `echo "a b`],
  ])('%j → %j', (command, normalised) => {
    expect(normaliseShellCommand(command)).toBe(normalised);
  });
});
