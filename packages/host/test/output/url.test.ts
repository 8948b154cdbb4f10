import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/output/url.js';

describe('redactUrl', () => {
  it('redacts the password and secret query values of a URL', () => {
    expect(redactUrl('http://alice:secret@collector:4318/')).toBe('http://alice:***@collector:4318/');
    expect(redactUrl('https://c:4318/?token=abc&x=1')).toBe('https://c:4318/?token=***&x=1');
  });

  it('shows an unparsable string as typed (a scheme left out), except a user-info part and a query', () => {
    for (const [typed, shown] of [
      ['127.0.0.1:4318', '127.0.0.1:4318'],
      ['not a url', 'not a url'],
      ['http://u:se cret@[bad/x', 'http://***@[bad/x'],
      ['u p@ss@[::1', '***@[::1'],
      ['[::1]:4318/?token=abc', '[::1]:4318/?…'],
    ] as const) {
      expect(() => new URL(typed)).toThrow();
      expect(redactUrl(typed)).toBe(shown);
    }
  });
});
