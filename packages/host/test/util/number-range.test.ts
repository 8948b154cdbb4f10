import { describe, expect, it } from 'vitest';
import { numberValueProblem, parseNumberText, rangeText } from '../../src/util/number-range.js';

// The one parser of numeric flags (and `.cordon.json` numbers): a refusal echoes what was given
// and says the whole range. `--verify-timeout abc` used to say only "must be a positive number of
// seconds", `--verify-output-cap 9007199254740992` "must be a positive integer" without the maximum.

const count = { integer: true, min: 0 };
const bytes = { integer: true, min: 1, unit: 'bytes' };
const seconds = { integer: false, min: 0, aboveMin: true, max: 604800, unit: 'seconds' };
const dollars = { integer: false, min: 0, aboveMin: true, unit: 'US dollars' };

describe('parseNumberText', () => {
  it('reads plain digits (a fraction where the rule takes one)', () => {
    expect(parseNumberText('0', count)).toBe(0);
    expect(parseNumberText('25', count)).toBe(25);
    expect(parseNumberText('9007199254740991', bytes)).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseNumberText('0.5', seconds)).toBe(0.5);
    expect(parseNumberText('.25', seconds)).toBe(0.25);
    expect(parseNumberText('604800', seconds)).toBe(604800);
    expect(parseNumberText('1000000000000', dollars)).toBe(1e12);
    // A minus sign only where the range goes below 0.
    expect(parseNumberText('-3', { integer: true, min: -5 })).toBe(-3);
  });

  it('refuses anything else, echoing it with the whole range', () => {
    const cases: Array<[string, object, string]> = [
      ['abc', seconds, 'expected a number of seconds greater than 0 and at most 604800 but received: "abc"'],
      ['0', seconds, 'expected a number of seconds greater than 0 and at most 604800 but received: "0"'],
      ['604800.5', seconds, 'expected a number of seconds greater than 0 and at most 604800 but received: "604800.5"'],
      ['0x10', seconds, 'expected a number of seconds greater than 0 and at most 604800 but received: "0x10"'],
      ['Infinity', dollars, 'expected a number of US dollars greater than 0 but received: "Infinity"'],
      ['', seconds, 'expected a number of seconds greater than 0 and at most 604800 but received: ""'],
      ['9007199254740992', bytes, 'expected a whole number of bytes from 1 to 9007199254740991 but received: "9007199254740992"'],
      ['1.5', bytes, 'expected a whole number of bytes from 1 to 9007199254740991 but received: "1.5"'],
      ['-1', count, 'expected an integer from 0 to 9007199254740991 but received: "-1"'],
      ['99', { integer: true, min: 0, max: 50 }, 'expected an integer from 0 to 50 but received: "99"'],
      // Not plain digits, whatever Number() would make of them: blanks, signs, exponents alike.
      [' 5', count, 'expected an integer from 0 to 9007199254740991 but received: " 5"'],
      ['5 ', count, 'expected an integer from 0 to 9007199254740991 but received: "5 "'],
      ['\t5', count, 'expected an integer from 0 to 9007199254740991 but received: "\\t5"'],
      ['+7', count, 'expected an integer from 0 to 9007199254740991 but received: "+7"'],
      ['1e3', count, 'expected an integer from 0 to 9007199254740991 but received: "1e3"'],
      ['1e3', seconds, 'expected a number of seconds greater than 0 and at most 604800 but received: "1e3"'],
      [' 0.5', seconds, 'expected a number of seconds greater than 0 and at most 604800 but received: " 0.5"'],
      ['-1', seconds, 'expected a number of seconds greater than 0 and at most 604800 but received: "-1"'],
      ['1_000', count, 'expected an integer from 0 to 9007199254740991 but received: "1_000"'],
    ];
    for (const [text, rule, message] of cases) expect(() => parseNumberText(text, rule as never), text).toThrow(message);
  });
});

describe('numberValueProblem (a JSON value)', () => {
  it('echoes the number as the file writes it when given, and never in a spelling the file did not use', () => {
    expect(numberValueProblem(1e30, count, '1e30')).toBe('expected an integer from 0 to 9007199254740991 but received: 1e30');
    // Without the file's spelling an exponent form is not echoed (the caller names the key).
    expect(numberValueProblem(1e30, count)).toBe('expected an integer from 0 to 9007199254740991');
    expect(numberValueProblem(1e3, count, '1e3')).toBeUndefined();
  });

  it('accepts numbers in range; refuses others, strings and booleans shown as JSON has them', () => {
    expect(numberValueProblem(5, count)).toBeUndefined();
    expect(numberValueProblem(-2, count)).toBe('expected an integer from 0 to 9007199254740991 but received: -2');
    expect(numberValueProblem('5', count)).toBe('expected an integer from 0 to 9007199254740991 but received: "5"');
    expect(numberValueProblem(true, count)).toBe('expected an integer from 0 to 9007199254740991 but received: true');
    expect(numberValueProblem(Number.NaN, seconds)).toBe('expected a number of seconds greater than 0 and at most 604800 but received: NaN');
  });

  it('rangeText', () => {
    expect(rangeText({ integer: true, min: 1, max: 1000, unit: 'columns' })).toBe('a whole number of columns from 1 to 1000');
    expect(rangeText({ integer: false, min: 0 })).toBe('a number of at least 0');
  });
});
