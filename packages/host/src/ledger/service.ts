import type { HookTable, LedgerHandle, LedgerService } from '@cordon/plugin-api';
import type { Ledger } from './ledger.js';
import type { OpenDatabaseOptions } from './open.js';
import { checkSessionName } from './ids.js';
import { resolveLedgerPath } from './path.js';
import { appendUsageRecord, checkUsageLogFile, resolveUsageLogPath } from './usage-log.js';

/**
 * The ledger as lent to plugins (`api.services.ledger`): paths resolve as the Rust pcodx, SichangHe/partial_compact_codex says, and
 * every compaction goes through the host's `compact` hook before it is stored. kysely and
 * better-sqlite3 load only when a ledger is opened, so the hot path (which builds the same api)
 * never pays for them. `loadLedger` gives the {@link Ledger} class: by default an `import()` of
 * its module; the fast `cordon pcodx` route (`src/fast/plugin-command.ts`), a bundle that cannot
 * `import()`, passes the class it carries, and `connection` settings for its one-shot processes.
 */
export function createLedgerService(
  hooks: { readonly compact: Pick<HookTable['compact'], 'promise'> },
  loadLedger: () => Promise<typeof Ledger> = async () => (await import('./ledger.js')).Ledger,
  connection: Pick<OpenDatabaseOptions, 'cacheSizeKiB'> = {},
): LedgerService {
  return Object.freeze({
    resolvePath: (options: { db?: string; env?: NodeJS.ProcessEnv } = {}) => resolveLedgerPath(options),
    open: async (options: { db?: string; env?: NodeJS.ProcessEnv; create?: boolean } = {}): Promise<LedgerHandle> => {
      const Ledger = await loadLedger();
      return Ledger.open({ ...connection, path: resolveLedgerPath(options), create: options.create, beforeStore: (plan) => hooks.compact.promise(plan) });
    },
    appendUsage: (record: Readonly<Record<string, unknown>>, options: { usageLog?: string; dbPath: string; env?: NodeJS.ProcessEnv }): string => {
      const path = resolveUsageLogPath(options);
      appendUsageRecord(path, options.dbPath, record);
      return path;
    },
    checkSessionName: (name: string): void => checkSessionName(name),
    checkUsageLog: (options: { usageLog?: string; dbPath: string; env?: NodeJS.ProcessEnv }): string => {
      const path = resolveUsageLogPath(options);
      checkUsageLogFile(path, options.dbPath);
      return path;
    },
  });
}
