import { describe, expect, it } from 'vitest';
import { closestName } from '../../src/util/closest-name.js';

// The did-you-mean of unknown commands, flags, plugins and hook agents. It preferred a name that
// starts with what was typed over a nearer one: `compact-mnay` suggested `compact` though
// `compact-many` (one swap away) existed. The nearest name wins; a prefix only breaks a tie.
describe('closestName', () => {
  it.each([
    // The nearest wins over a prefix.
    ['compact-mnay', ['compact', 'compact-many', 'show'], 'compact-many'],
    ['compact-mnay', ['compact-many', 'compact'], 'compact-many'],
    ['check-x', ['check', 'check-y'], 'check-y'],
    ['instal', ['install', 'inspect', 'uninstall'], 'install'],
    // Equally near: the name that starts with it, or that it starts with, whatever the order.
    ['chec', ['chef', 'check'], 'check'],
    ['checkk', ['checko', 'check'], 'check'],
    // Nothing near: the one prefix, however far.
    ['claude', ['claude-code', 'codex', 'gemini'], 'claude-code'],
    ['gemini-cli', ['claude-code', 'codex', 'gemini'], 'gemini'],
    // Typos without a prefix.
    ['chek', ['check', 'arm'], 'check'],
    ['cdoex', ['codex', 'claude-code'], 'codex'],
    ['jsno', ['json', 'text'], 'json'],
  ] as const)('%s among %j → %s', (typed, names, expected) => {
    expect(closestName(typed, names)).toBe(expected);
  });

  it.each([
    ['xyz', ['check', 'arm']],
    // Two prefixes and neither near: no guess.
    ['c', ['check', 'codex']],
    ['', ['check']],
  ] as const)('%s among %j → nothing', (typed, names) => {
    expect(closestName(typed, names)).toBeUndefined();
  });
});
