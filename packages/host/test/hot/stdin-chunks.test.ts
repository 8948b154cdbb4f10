import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPluginRoots, makeSandbox, type Sandbox } from '../../../../test/support/cli.js';
import { readPayload, readPayloadFd, type PayloadRead } from '../../src/hot/stdin.js';
import { readMarkers } from '../../src/telemetry/markers.js';
import { sessionDir } from '../../src/telemetry/session-dir.js';
import { AGENT_PLUGINS, FIXTURES, hookLog, hookViaShell, PATIENT_HOOK_ENV } from './support.js';

// What the hook makes of the bytes on its stdin may not depend on how they arrive in chunks: a
// payload followed by more bytes (`{"a":1} garbage`, `{"a":1}{"b":2}`, `{"a":1}\n\n`) reads the
// same whether the rest came in the same read or a later one.

/** `bytes` cut at `cuts` (offsets into it, in any order, repeats giving empty chunks). */
function chunked(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const points = cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  return out;
}

/**
 * The verdict on `chunks` read through a stream (each chunk one 'data' event), ended after the
 * last: the read without `ignoredBytes`, which counts only the bytes that came with the
 * document's end (see the tests of it below).
 */
async function readChunks(chunks: readonly Buffer[], maxBytes?: number): Promise<PayloadRead> {
  const { ignoredBytes: _, ...verdict } = (await readRaw(chunks, maxBytes)) as PayloadRead & { ignoredBytes?: number };
  return verdict as PayloadRead;
}

/** The read of `chunks` through a stream, as it comes. */
function readRaw(chunks: readonly Buffer[], maxBytes?: number): Promise<PayloadRead> {
  return readPayload(Readable.from(chunks.map((c) => Buffer.from(c)), { objectMode: true }), { timeoutMs: 5000, ...(maxBytes !== undefined ? { maxBytes } : {}) });
}

const DOCUMENTS = ['{"a":1}', '{"s":"x}\\"{","n":[1,{"b":null}]}', '\ufeff {"a":"é😀"}', '[1,2]', '{"a":1', 'null', '', '  ', 'garbage {"a":1}', '{"a" 1}', '{"tool":"rm -rf /"}'];
const TRAILS = ['', '\n', '\n\n', ' \t\r\n', ' garbage', '{"b":2}', '}', ']', '"', '\\', 'x'.repeat(70), '\n{"a":2}\n'];

describe('the hook payload read from stdin', () => {
  it('reads the same whether trailing bytes come in the same chunk as the payload or later', async () => {
    for (const doc of ['{"a":1}', '{"a":1}{"b":2}', '{"a":1} garbage', '{"a":1}\n\n']) {
      const bytes = Buffer.from(doc);
      const whole = await readChunks([bytes]);
      const split = await readChunks([bytes.subarray(0, 7), bytes.subarray(7)]);
      expect(whole, doc).toEqual(split);
      expect(whole, doc).toMatchObject({ ok: true, payload: { a: 1 }, bytes: 7 });
    }
  });

  it('reads any bytes to the same result however they are chunked, under the size limit and over it (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...DOCUMENTS), fc.constantFrom(...TRAILS), fc.array(fc.nat(), { maxLength: 6 }), fc.constantFrom(undefined, 12, 24), async (doc, trail, cuts, maxBytes) => {
        const bytes = Buffer.from(doc + trail);
        const whole = await readChunks([bytes], maxBytes);
        expect(await readChunks(chunked(bytes, cuts), maxBytes)).toEqual(whole);
      }),
      { numRuns: 250 },
    );
  });

  it('a payload cut at every position agrees with it whole, trailing bytes of every kind included', async () => {
    for (const trail of TRAILS) {
      const bytes = Buffer.from(`{"x":"a\\"}","y":[{}]}${trail}`);
      const whole = await readChunks([bytes]);
      expect(whole, JSON.stringify(trail)).toMatchObject({ ok: true, payload: { x: 'a"}', y: [{}] } });
      for (let at = 0; at <= bytes.length; at++) expect(await readChunks([bytes.subarray(0, at), bytes.subarray(at)]), `${JSON.stringify(trail)} at ${at}`).toEqual(whole);
    }
  });

  // Trailing bytes were dropped without a word; the hook now logs how many it left out (main.ts).
  it('counts the bytes other than white space that came with the document\'s end, and no others', async () => {
    expect(await readRaw([Buffer.from('{"a":1} garbage')])).toEqual({ ok: true, payload: { a: 1 }, bytes: 7, ignoredBytes: 8 });
    expect(await readRaw([Buffer.from('{"a":1}{"b":2}\n')])).toEqual({ ok: true, payload: { a: 1 }, bytes: 7, ignoredBytes: 8 });
    expect(await readRaw([Buffer.from('{"a":1}\n\n \t\r\n')])).toEqual({ ok: true, payload: { a: 1 }, bytes: 7 });
    expect(await readRaw([Buffer.from('{"a":1}')])).toEqual({ ok: true, payload: { a: 1 }, bytes: 7 });
    // Only the read that ended the document is seen: a later one is never read.
    expect(await readRaw([Buffer.from('{"a":1}'), Buffer.from(' garbage')])).toEqual({ ok: true, payload: { a: 1 }, bytes: 7 });
    expect(await readRaw([Buffer.from('{"a":'), Buffer.from('1} x')])).toEqual({ ok: true, payload: { a: 1 }, bytes: 7, ignoredBytes: 2 });
    // A document that is no payload is judged as before, whatever follows it.
    expect(await readRaw([Buffer.from('[1] garbage')])).toMatchObject({ ok: false, problem: 'not-object' });
  });

  it('a regular file holding a payload and more bytes reads as the same payload (the descriptor route)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-stdin-'));
    try {
      for (const text of ['{"a":1} garbage', '{"a":1}{"b":2}', '{"a":1}\n\n']) {
        const file = join(dir, 'payload');
        writeFileSync(file, text);
        const { openSync, closeSync } = await import('node:fs');
        const fd = openSync(file, 'r');
        try {
          const { ignoredBytes, ...verdict } = (await readPayloadFd(fd, () => process.stdin, { timeoutMs: 2000 })) as PayloadRead & { ignoredBytes?: number };
          expect(verdict).toEqual({ ok: true, payload: { a: 1 }, bytes: 7 });
          expect(ignoredBytes, text).toBe(text.endsWith('\n\n') ? undefined : text.length - 7);
        } finally {
          closeSync(fd);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the built hook with trailing bytes on a pipe', () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = makeSandbox('cordon-hook-trailing-');
    sandbox.env.CORDON_SAMPLER = 'off';
    Object.assign(sandbox.env, PATIENT_HOOK_ENV);
    linkPluginRoots(sandbox.dataDir, AGENT_PLUGINS);
  });
  afterEach(() => sandbox.cleanup());

  it('records the payload once, silently, whether the garbage after it arrives with it or 300 ms later', async () => {
    const text = readFileSync(join(FIXTURES, 'codex.PreToolUse.Bash.json'), 'utf8').trim();
    const dir = sandbox.dir('stdin');
    const first = join(dir, 'first');
    const second = join(dir, 'second');
    writeFileSync(first, text);
    writeFileSync(second, ' garbage {"b":2}');
    const together = join(dir, 'together');
    writeFileSync(together, `${text} garbage {"b":2}`);
    const session = (JSON.parse(text) as { session_id: string }).session_id;
    const markers = () => readMarkers(join(sessionDir(sandbox.dataDir, session), 'markers.jsonl')).markers;
    for (const stdin of [`< <(cat '${together}')`, `< <(cat '${first}'; sleep 0.3; cat '${second}')`]) {
      const before = markers().length;
      const r = await hookViaShell(['--agent', 'codex'], stdin, sandbox.env);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('');
      expect(markers().length, stdin).toBe(before + 1);
    }
    expect(hookLog(sandbox.dataDir).filter((l) => l.message === 'hook payload unusable')).toEqual([]);
  }, 60_000);

  // A file on stdin is read whole in one read, so what follows the payload is always seen.
  it('names the bytes it left out after the payload in one log line, and still prints nothing', async () => {
    const text = readFileSync(join(FIXTURES, 'codex.PreToolUse.Bash.json'), 'utf8').trim();
    const file = join(sandbox.dir('stdin'), 'payload');
    const ignored = 'LOG-ONLY {"b":2}\n';
    writeFileSync(file, `${text} ${ignored}`);
    const r = await hookViaShell(['--agent', 'codex'], `< '${file}'`, sandbox.env);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    const lines = hookLog(sandbox.dataDir).filter((l) => l.message === 'hook payload: bytes after its JSON document ignored');
    expect(lines).toMatchObject([{ level: 'warn', ignoredBytes: ignored.length + 1, bytes: Buffer.byteLength(text), agent: 'codex' }]);
    // Named, not copied: the log holds the count, not the bytes.
    expect(JSON.stringify(hookLog(sandbox.dataDir))).not.toContain('LOG-ONLY');
    // White space alone after it (the usual new line) is no news.
    writeFileSync(file, `${text}\n\n`);
    expect((await hookViaShell(['--agent', 'codex'], `< '${file}'`, sandbox.env)).exitCode).toBe(0);
    expect(hookLog(sandbox.dataDir).filter((l) => l.message === 'hook payload: bytes after its JSON document ignored')).toHaveLength(1);
  }, 60_000);
});
