import { lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectionErrorWords, systemErrorWords } from '../src/system-error.js';

/** The error `fn` throws. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('nothing thrown');
}

describe('systemErrorWords', () => {
  it("words Node's real file-system errors without their code, system call or path", () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-errno-'));
    try {
      expect(systemErrorWords(thrown(() => readFileSync(join(dir, 'missing'))))).toBe('no such file');
      expect(systemErrorWords(thrown(() => readFileSync(dir)))).toBe('is a directory');
      expect(systemErrorWords(thrown(() => lstatSync(join(dir, 'missing', 'x', '.git'))))).toBe('no such file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a code without words of its own: libuv's description from the message, never its path; else the code", () => {
    const exdev = Object.assign(new Error("EXDEV: cross-device link not permitted, rename '/a/.git/x' -> '/b'"), { code: 'EXDEV' });
    expect(systemErrorWords(exdev)).toBe('cross-device link not permitted');
    expect(systemErrorWords(Object.assign(new Error('something else'), { code: 'EWHAT' }))).toBe('EWHAT');
    expect(systemErrorWords(new Error('plain'))).toBe('plain');
    expect(systemErrorWords('text')).toBe('text');
  });
});

describe('connectionErrorWords', () => {
  it("words a failed connection, also under the error's cause (fetch), never the system call's text", () => {
    const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname: 'db' });
    expect(connectionErrorWords(lookup)).toBe('no such host (its name does not resolve)');
    expect(connectionErrorWords(Object.assign(new Error('getaddrinfo EAI_AGAIN db'), { code: 'EAI_AGAIN' }))).toBe('its host name could not be looked up for now (DNS)');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4318'), { code: 'ECONNREFUSED' });
    expect(connectionErrorWords(new TypeError('fetch failed', { cause: refused }))).toBe('connection refused (nothing listens there)');
    // Anything else is the caller's to word.
    expect(connectionErrorWords(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }))).toBeUndefined();
    expect(connectionErrorWords(new Error('password authentication failed for user "u"'))).toBeUndefined();
    expect(connectionErrorWords(null)).toBeUndefined();
    expect(connectionErrorWords('ECONNREFUSED')).toBeUndefined();
  });
});
