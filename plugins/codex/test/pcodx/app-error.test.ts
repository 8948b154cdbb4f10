import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAppServerError } from '../../src/pcodx/model-turn/app-error.js';
import { StdioAppServer } from '../../src/pcodx/model-turn/stdio-rpc.js';

const notice = (willRetry: boolean, info: unknown, message = 'Reconnecting... 1/5', details: string | null = 'unexpected status') => ({ error: { message, codexErrorInfo: info, additionalDetails: details }, willRetry });

describe('app-server error notifications (model-turn)', () => {
  it('end the turn when Codex will not retry, on 401/403, and when no HTTP answer came; a retried 429/5xx or a bare retry waits', () => {
    expect(readAppServerError(notice(false, { httpConnectionFailed: { httpStatusCode: 500 } })).final).toBe(true);
    expect(readAppServerError(notice(true, { responseStreamDisconnected: { httpStatusCode: 401 } })).final).toBe(true);
    expect(readAppServerError(notice(true, { responseStreamDisconnected: { httpStatusCode: 403 } })).final).toBe(true);
    expect(readAppServerError(notice(true, { responseStreamDisconnected: { httpStatusCode: null } })).final).toBe(true);
    expect(readAppServerError(notice(true, { responseStreamDisconnected: { httpStatusCode: 429 } })).final).toBe(false);
    expect(readAppServerError(notice(true, { responseStreamDisconnected: { httpStatusCode: 503 } })).final).toBe(false);
    expect(readAppServerError(notice(true, null)).final).toBe(false);
    expect(readAppServerError(notice(true, 'other')).final).toBe(false);
    expect(readAppServerError({ error: {} }).final).toBe(true);
  });

  it('keep the message and its details, control characters escaped; an empty error still says something', () => {
    expect(readAppServerError(notice(false, null, 'bad\u001b[31m', 'body\r\n{"x":1}\u009b')).text).toBe('bad\\u001b[31m (body\\u000d\\u000a{"x":1}\\u009b)');
    expect(readAppServerError(notice(false, null, 'plain', null)).text).toBe('plain');
    expect(readAppServerError({ error: { message: '' } }).text).toBe('an error without a message');
    // A tab or a bidirectional override is no more shown as itself than ESC (the host's rule).
    expect(readAppServerError(notice(false, null, 'a\tb\u202etxt.exe', null)).text).toBe('a\\u0009b\\u202etxt.exe');
  });
});

describe('an app-server that dies', () => {
  it('is reported with its last stderr lines, control characters (its log colours) escaped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-app-error-'));
    try {
      const codex = join(dir, 'coloured-codex');
      writeFileSync(codex, "#!/bin/sh\nprintf '\\033[31mERROR\\033[0m no model\\r\\n' >&2\nexit 4\n");
      chmodSync(codex, 0o755);
      const server = new StdioAppServer(codex, { onNotification: () => undefined });
      await expect(server.request('initialize', {})).rejects.toThrow(`${codex} app-server exited (4): \\u001b[31mERROR\\u001b[0m no model`);
      await server.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('its last stderr keeps a character its writes split, and keeps only whole characters of a long tail', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-app-error-'));
    try {
      // 😀 is F0 9F 98 80, written in two halves a moment apart: two reads of the pipe.
      const codex = join(dir, 'split-codex');
      writeFileSync(codex, "#!/bin/sh\nprintf 'Error: \\360\\237' >&2\nsleep 0.3\nprintf '\\230\\200 gone\\n' >&2\nexit 4\n");
      chmodSync(codex, 0o755);
      const split = new StdioAppServer(codex, { onNotification: () => undefined });
      await expect(split.request('initialize', {})).rejects.toThrow(`${codex} app-server exited (4): Error: 😀 gone`);
      await split.close();
      // 3,000 emoji then `c`: the last 4,096 UTF-16 units would begin with the second half of an emoji.
      const long = join(dir, 'long-codex');
      writeFileSync(long, `#!${process.execPath}\nprocess.stderr.write('😀'.repeat(3000) + 'c', () => process.exit(4));\n`);
      chmodSync(long, 0o755);
      const tail = new StdioAppServer(long, { onNotification: () => undefined });
      await expect(tail.request('initialize', {})).rejects.toThrow(`${long} app-server exited (4): ${'😀'.repeat(2047)}c`);
      await tail.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('cannotStartCodex: why the app-server could not start, in words that fit how it was named', () => {
  it('a name not on PATH, a path with no file, a script whose #! interpreter is missing, anything else as given', async () => {
    const { cannotStartCodex } = await import('../../src/pcodx/errors.js');
    const dir = mkdtempSync(join(tmpdir(), 'cordon-codex-start-'));
    try {
      const remedy = 'install it (npm install -g @openai/codex) or pass --codex-bin PATH';
      expect(cannotStartCodex('codex', 'spawn codex ENOENT')).toBe(`cannot start codex: it is not installed or not on PATH; ${remedy}`);
      // A path is not looked up on PATH: saying so misled (`--codex-bin /nonexistent`).
      expect(cannotStartCodex(join(dir, 'missing'), 'ENOENT')).toBe(`cannot start ${join(dir, 'missing')}: there is no such file; ${remedy}`);
      const script = join(dir, 'codex');
      writeFileSync(script, '#!/no/such/interpreter\n');
      chmodSync(script, 0o755);
      expect(cannotStartCodex(script, 'spawn ENOENT')).toBe(`cannot start ${script}: the interpreter its #! line names was not found (for npm's codex, node on PATH)`);
      expect(cannotStartCodex(script, 'spawn EACCES')).toBe(`cannot start ${script}: spawn EACCES`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
