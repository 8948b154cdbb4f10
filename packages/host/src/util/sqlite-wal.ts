import { sleepSync } from './sleep-sync.js';

/**
 * Switches the connection to WAL (`PRAGMA journal_mode = WAL`), waiting for other processes:
 * the switch needs an exclusive lock and SQLite answers SQLITE_BUSY at once, without its busy
 * handler, while another connection holds a lock on a new file (many processes opening one new
 * database together). Retries every few ms for up to `timeoutMs`, then throws the busy error.
 */
export function enableWal(raw: { pragma(source: string): unknown }, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      raw.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw error;
      sleepSync(Math.min(2 + attempt, 25));
    }
  }
}
