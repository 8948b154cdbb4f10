import { createHash } from 'node:crypto';
import { afterEach, beforeEach } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ledger, type LedgerOpenOptions } from '../../src/ledger/index.js';

/** A temp directory for one test's database files. */
export function tempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-ledger-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Opens ledgers and closes every one of them on `closeAll()` (afterEach). */
export function ledgers() {
  const open: Ledger[] = [];
  return {
    async open(path: string, options: Omit<LedgerOpenOptions, 'path'> = {}): Promise<Ledger> {
      const l = await Ledger.open({ path, ...options });
      open.push(l);
      return l;
    },
    async closeAll(): Promise<void> {
      for (const l of open.splice(0)) await l.close().catch(() => undefined);
    },
  };
}

/** sha256 of a file's bytes plus whether its -wal/-shm companions exist; "unchanged" compares these. */
export function fingerprint(path: string): string {
  return `${createHash('sha256').update(readFileSync(path)).digest('hex')} wal=${existsSync(`${path}-wal`)}`;
}

/**
 * Per-test temp dir plus ledger tracking, with vitest hooks registered: `dir()` is the current
 * test's directory; every ledger opened through `L` is closed and the directory removed after it.
 */
export function ledgerSandbox(): { L: ReturnType<typeof ledgers>; dir(): string } {
  const L = ledgers();
  let tmp: ReturnType<typeof tempDir> | undefined;
  beforeEach(() => void (tmp = tempDir()));
  afterEach(async () => {
    await L.closeAll();
    tmp?.cleanup();
  });
  return { L, dir: () => tmp!.dir };
}
