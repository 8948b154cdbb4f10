import { describe, expect, it } from 'vitest';
import { ENDED_COMMAND_CHARS, shownEndedProcesses } from '../../src/control/ended.js';

// How the host shows and records the processes a backend ended with a guarded call: the backend
// hands over raw argvs (cgroup-linux reads /proc/<pid>/cmdline); redaction comes before the cut.

describe('shownEndedProcesses', () => {
  it('redacts a secret that straddles the shown width before cutting, so none of it shows', () => {
    // Found by a probe: the backend cut a command line to 200 characters before the host redacted
    // it, so a token at the cut showed its first characters (a GitHub token no longer matches
    // its shape once cut).
    const token = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
    for (const pad of [180, 190, 195, 198]) {
      const [p] = shownEndedProcesses([{ pid: 7, argv: ['sh', '-c', `${'x'.repeat(pad)} ${token}`] }]);
      expect(p!.command.length).toBeLessThanOrEqual(ENDED_COMMAND_CHARS);
      // Cut first, pad 190 showed `ghp_A1…`, which no longer looks like a token to redact.
      expect(p!.command).not.toMatch(/ghp_[A-Za-z0-9]|A1|b2/);
    }
    // A value given as the argument after a secret option is one only as an argv shows it.
    const [q] = shownEndedProcesses([{ pid: 8, argv: ['deploy', '--token', 'hunter2-not-a-shape', '--password=pw123'] }]);
    expect(q).toEqual({ pid: 8, command: 'deploy --token *** --password=***' });
  });

  it('escapes controls and line breaks, keeps [comm] and ?, and cuts with …', () => {
    const shown = shownEndedProcesses([
      { pid: 1, argv: ['dev\u001b[31mserver\u0007', 'a\nb'] },
      { pid: 2, argv: ['[kworker/0:1]'] },
      { pid: 3, argv: ['?'] },
      { pid: 4, argv: ['z'.repeat(500)] },
    ]);
    expect(shown.map((p) => p.command)).toEqual(['dev\\u001b[31mserver\\u0007 a\\u000ab', '[kworker/0:1]', '?', `${'z'.repeat(ENDED_COMMAND_CHARS - 1)}…`]);
  });

  it('reads plugin data defensively: an older backend`s command text, and entries without a pid or argv', () => {
    expect(shownEndedProcesses([{ pid: 5, command: 'curl -H "Authorization: Bearer abc.def" x' }])).toEqual([{ pid: 5, command: 'curl -H "Authorization: Bearer ***" x' }]);
    expect(shownEndedProcesses([{ pid: 'x', argv: ['a'] }, null, { pid: 6 }, { pid: 1.5, argv: [] }])).toEqual([{ pid: 6, command: '?' }]);
    expect(shownEndedProcesses(undefined)).toEqual([]);
    expect(shownEndedProcesses({ length: 1 })).toEqual([]);
  });
});
