import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/support/wait.js';
import { ledgers, tempDir } from './helpers.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
let tmp: ReturnType<typeof tempDir>;
const L = ledgers();
const children: ChildProcess[] = [];
beforeEach(() => (tmp = tempDir()));
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await L.closeAll();
  tmp.cleanup();
});

function start(script: string, args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [join(FIXTURES, script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (b) => (stdout += b));
  child.stderr!.on('data', (b) => (stderr += b));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

describe('several processes on one ledger file', () => {
  it('8 processes opening a fresh file and recording into one session at once lose nothing and get unique, gap-free ids', async () => {
    const path = join(tmp.dir, 'shared.sqlite3');
    const go = join(tmp.dir, 'go');
    const perWorker = 40;
    const workers = Array.from({ length: 8 }, (_, i) => start('record-worker.mjs', [path, 'crowd', `w${i}`, String(perWorker), go]));
    // The start signal once all 8 have opened the file and wait (the most contention).
    await waitFor(() => readdirSync(tmp.dir).filter((n) => n.startsWith('go.ready.')).length === 8, { what: '8 workers at the start line', timeoutMs: 60_000 });
    writeFileSync(go, '');
    const results = await Promise.all(workers.map((w) => w.done));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const reported = results.flatMap((r) => JSON.parse(r.stdout) as string[]);
    expect(new Set(reported).size).toBe(8 * perWorker);

    const raw = new Database(path, { readonly: true });
    const rows = raw.prepare(`select id, seq, text, source from messages where session_id = 'crowd' order by seq`).all() as Array<{ id: string; seq: number; text: string; source: string }>;
    raw.close();
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 8 * perWorker }, (_, i) => i + 1));
    expect(rows.every((r) => r.id === `msg${r.seq}`)).toBe(true);
    expect(new Set(rows.map((r) => r.text)).size).toBe(8 * perWorker);
    for (let w = 0; w < 8; w++) {
      // Each worker's messages are all there, in the order it wrote them, under the ids it was told.
      const mine = rows.filter((r) => r.source === `w${w}`);
      expect(mine.map((r) => r.text)).toEqual(Array.from({ length: perWorker }, (_, i) => `w${w}:${i}`));
      expect(mine.map((r) => r.id)).toEqual(JSON.parse(results[w]!.stdout));
    }
  }, 120_000);

  it('a SIGKILL in the middle of compact-many leaves no partial compaction, and the next compaction works', async () => {
    const path = join(tmp.dir, 'kill.sqlite3');
    const ledger = await L.open(path);
    await ledger.resolveSession({ mode: 'create', id: 's' });
    await ledger.record('s', Array.from({ length: 9 }, (_, i) => ({ role: 'assistant' as const, text: `t${i + 1}` })));
    await L.closeAll();
    const ranges = [
      { from: 'msg1', to: 'msg2', summary: 'a' },
      { from: 'msg4', to: 'msg5', summary: 'b' },
      { from: 'msg7', to: 'msg9', summary: 'c' },
    ];
    const marker = join(tmp.dir, 'paused');
    const run = start('compact-pause.mjs', [path, 's', marker, JSON.stringify(ranges)]);
    await waitFor(() => existsSync(marker), { what: 'the compaction to pause inside its transaction', timeoutMs: 60_000 });
    // It is now inside the transaction with cmp1 inserted and cmp2, cmp3 still to come.
    run.child.kill('SIGKILL');
    const end = await run.done;
    expect(end.signal).toBe('SIGKILL');
    expect(end.stdout).toBe('');

    const after = await L.open(path);
    expect(await after.compactions('s')).toEqual([]);
    expect((await after.visible('s')).map((e) => e.id)).toEqual(['msg1', 'msg2', 'msg3', 'msg4', 'msg5', 'msg6', 'msg7', 'msg8', 'msg9']);
    const again = await after.compact('s', ranges);
    expect(again.ranges.map((r) => r.id)).toEqual(['cmp1', 'cmp2', 'cmp3']);
    expect(again.visibleIds).toEqual(['cmp1', 'msg3', 'cmp2', 'msg6', 'cmp3']);
  }, 60_000);
});
