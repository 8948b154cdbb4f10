import { describe, expect, it } from 'vitest';
import { redactText } from '../../src/output/redact.js';
import { redactEndpoint, redactUrl, shownEndpoint } from '../../src/output/url.js';

// Found by a hostile-input probe: `--otlp 'http:/user:pw@h'` (one slash) or `//user:pw@h` was
// refused with the password in the message, since only a `scheme://` URL had its user-info hidden.
describe('shownEndpoint of what does not parse as it should', () => {
  it.each([
    ['http:/user:pwC3@127.0.0.1:4318', 'http:/***@127.0.0.1:4318'],
    ['//user:pwI9@127.0.0.1:4318', '//***@127.0.0.1:4318'],
    ['user:pwX1@127.0.0.1:4318/v1', '***@127.0.0.1:4318/v1'],
    ['http://u:pa/ss@h:4318/x', 'http://***@h:4318/x'],
    ['http:user:pw@h', 'http:***@h'],
    ['https://h:4318/x?token=abc', 'https://h:4318/x?token=***'],
    ['https://h:4318/x', 'https://h:4318/x'],
  ])('%s is shown as %s', (typed, shown) => {
    expect(shownEndpoint(typed)).toBe(shown);
  });
});

describe('redactUrl', () => {
  it('redacts the password and secret query values of a URL', () => {
    expect(redactUrl('http://alice:secret@collector:4318/')).toBe('http://***@collector:4318/');
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

// One form of a URL's user information wherever cordon shows a URL (mask.ts maskedUserinfo): all
// of it as `***`, the user name with the password; `redactUrl` kept the user (`alice:***@`).
describe('user information', () => {
  it('is `***` whole in a printed URL, an export endpoint (parsed or as typed) and a recorded command', () => {
    for (const url of ['https://alice:s3cret@h:4318/x', 'https://alice:@h:4318/x', 'https://TOKEN@h:4318/x']) {
      expect(redactUrl(url), url).toBe('https://***@h:4318/x');
      expect(redactEndpoint(url), url).toBe('https://***@h:4318/x');
      expect(shownEndpoint(url), url).toBe('https://***@h:4318/x');
    }
    expect(redactText('curl https://alice:s3cret@h:4318/x')).toBe('curl https://***@h:4318/x');
    expect(redactText('curl https://alice:s3cret@h:4318/x', { cut: true })).toBe('curl https://***@h:4318/x');
    expect(redactText('git clone https://alice:s3cr', { cut: true })).toBe('git clone https://***');
    for (const shown of [redactUrl('https://alice:s3cret@h/'), redactText('x https://alice:s3cret@h/')]) expect(shown).not.toContain('alice');
    // A reference stays as written; a URL without user information is unchanged.
    expect(redactText('curl https://alice:$PASS@h/')).toBe('curl https://alice:$PASS@h/');
    expect(redactUrl('https://h:4318/x')).toBe('https://h:4318/x');
  });
});

