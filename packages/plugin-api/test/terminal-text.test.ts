import { describe, expect, it } from 'vitest';
import { escapeUnits, shownLine, UNSHOWN_SOURCE } from '../src/index.js';

describe('shownLine (the one-line terminal escape plugins share with the host)', () => {
  it('escapes what a terminal acts on or hides, and keeps what it shows as itself', () => {
    expect(shownLine('plain ascii ~!')).toBe('plain ascii ~!');
    expect(shownLine('x\u001b]52;c;aGk=\u0007')).toBe('x\\u001b]52;c;aGk=\\u0007');
    expect(shownLine('a\tb\r\nc\u0085\u009b')).toBe('a\\u0009b\\u000d\\u000ac\\u0085\\u009b');
    expect(shownLine('report\u202etxt.exe\u2066')).toBe('report\\u202etxt.exe\\u2066');
    expect(shownLine('no\u00a0break\u2028line')).toBe('no\\u00a0break\\u2028line');
    expect(shownLine('lone \ud800 surrogate')).toBe('lone \\ud800 surrogate');
    expect(shownLine('é 漢字 🙂')).toBe('é 漢字 🙂');
  });

  it('escapes unassigned code points and the invisible default-ignorable letters and marks, whose width terminals disagree on', () => {
    // tmux: U+0378 takes no column and U+3164 two (blank); string-width counts one and none.
    expect(shownLine('a\u0378b')).toBe('a\\u0378b');
    expect(shownLine('\u3164\u115f\u1160\uffa0')).toBe('\\u3164\\u115f\\u1160\\uffa0');
    expect(shownLine('x\u034fy\u17b4\u17b5')).toBe('x\\u034fy\\u17b4\\u17b5');
    expect(shownLine('\u{50000}\u{e0080}')).toBe('\\ud900\\udc00\\udb40\\udc80');
    // A variation selector chooses how the character before it looks: kept, as are assigned letters.
    expect(shownLine('\u2764\ufe0f 가 \u1100\u1161')).toBe('\u2764\ufe0f 가 \u1100\u1161');
  });

  it('writes a character outside the BMP as its two code units', () => {
    expect(escapeUnits('\u{e0041}')).toBe('\\udb40\\udc41');
    expect(shownLine('tag\u{e0041}')).toBe('tag\\udb40\\udc41');
    expect(new RegExp(UNSHOWN_SOURCE, 'u').test(' ')).toBe(false);
  });
});
