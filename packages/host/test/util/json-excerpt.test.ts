import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { withoutJsonExcerpts } from '../../src/util/json-excerpt.js';
import { createFileLogger } from '../../src/util/log.js';

// V8's JSON.parse errors quote up to about twenty characters of the text they failed on: the
// start of a secret, too short for redaction to recognise (found by a hostile-input probe in the
// hook's log; the log now leaves every such excerpt out, whoever logs it).

/** The message JSON.parse gives for `text` (this Node's own wording). */
function parseError(text: unknown): string {
  try {
    JSON.parse(text as string);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${String(text)} parsed`);
}

const SECRET = 'ghp_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD';

describe('withoutJsonExcerpts', () => {
  it.each([
    ['a bare token', SECRET, "Unexpected token 'g' (the input is not quoted); not valid JSON"],
    ['a short one', 'ghp_DD', "Unexpected token 'g' (the input is not quoted); not valid JSON"],
    ['inside an object', `{"a": ${SECRET}}`, "Unexpected token 'g' (the input is not quoted); not valid JSON"],
    ['far into the text', `{"a": "${'x'.repeat(40)}", "b": sk-proj-abcdefghijklmnop}`, "Unexpected token 's' (the input is not quoted); not valid JSON"],
    ['an excerpt that holds the phrase', 'xxxxx" is not valid JSONyy', "Unexpected token 'x' (the input is not quoted); not valid JSON"],
    ['a value that is not a string', undefined, 'not valid JSON (the input is not quoted)'],
  ])('%s: what is wrong, none of the input', (_label, input, expected) => {
    expect(withoutJsonExcerpts(parseError(input))).toBe(expected);
  });

  it('inside a longer message, wherever it stands', () => {
    const inner = parseError(SECRET);
    expect(withoutJsonExcerpts(`reading line 3: ${inner} (session s1)`)).toBe("reading line 3: Unexpected token 'g' (the input is not quoted); not valid JSON (session s1)");
  });

  it('messages that quote nothing, and other text, are kept as they are', () => {
    for (const text of ['{"a": "b', '{"a": 1}x', '{"a": "\u0001"}', '']) {
      const message = parseError(text);
      expect(withoutJsonExcerpts(message)).toBe(message);
    }
    expect(withoutJsonExcerpts('cannot read "config.json": it is not valid')).toBe('cannot read "config.json": it is not valid');
  });

  it('no run of four characters of the input survives, whatever the input (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 4, maxLength: 60 }), fc.string({ maxLength: 30 }), (secret, before) => {
        const text = `${before}${secret}`;
        let message: string;
        try {
          JSON.parse(text);
          return;
        } catch (error) {
          message = (error as Error).message;
        }
        const shown = withoutJsonExcerpts(message);
        // Only what V8 quotes is the input's; the rest of the message is V8's own words.
        if (!message.includes(' is not valid JSON')) return;
        expect(shown).not.toMatch(/"[\s\S]*"/);
        expect(shown.endsWith('not valid JSON') || shown.endsWith('(the input is not quoted)')).toBe(true);
      }),
    );
  });
});

describe('the log leaves such excerpts out', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-json-excerpt-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('in the message and in every string field, however deep', () => {
    const log = createFileLogger(dir, 'test', { CORDON_LOG_LEVEL: 'debug' });
    const inner = parseError(`{"token": ${SECRET}}`);
    log.warn(`plugin failed: ${inner}`, { error: inner, nested: { list: [`SyntaxError: ${inner}`] } });
    const text = readFileSync(join(dir, 'logs', 'cordon.log'), 'utf8');
    expect(text).not.toMatch(/ghp_|DDD/);
    const line = JSON.parse(text.trim()) as { message: string; error: string; nested: { list: string[] } };
    expect(line.message).toBe("plugin failed: Unexpected token 'g' (the input is not quoted); not valid JSON");
    expect(line.error).toBe("Unexpected token 'g' (the input is not quoted); not valid JSON");
    expect(line.nested.list[0]).toBe("SyntaxError: Unexpected token 'g' (the input is not quoted); not valid JSON");
  });
});
