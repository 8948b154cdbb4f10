import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastCommandApi } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { Ledger } from '../ledger/ledger.js';
import { createLedgerService } from '../ledger/service.js';
import { HOST_ROOT } from '../util/host-root.js';
import { TERMINAL_SERVICE } from '../output/terminal-service.js';

/**
 * The api a plugin's fast command gets (`src/fast/plugin-command.ts`), in its own bundle
 * (`dist/fast/ledger-api.cjs`, the ledger with kysely and better-sqlite3): only a command a plugin
 * declares loads it, so every other `cordon pcodx …` pays nothing for it on its way to oclif.
 */

/** SQLite's page cache of a fast command's ledger connection, KiB (see `OpenDatabaseOptions.cacheSizeKiB`). */
const ONE_SHOT_CACHE_KIB = 2048;

/** The terminal escaping lent as `services.terminal` (the same as the plugin host's). */

/**
 * The host's version, the ledger service and the terminal escaping, whose `Ledger` class comes from this bundle (it
 * cannot `import()` one). No plugin is loaded, so no `compact` tap could run: a compaction is
 * refused here, and the commands that compact take the oclif route.
 */
export function fastCommandApi(): FastCommandApi {
  const compact = {
    promise: async (): Promise<never> => {
      throw new CordonError(ERROR_CODES.INTERNAL, 'a compaction cannot run on the fast command route (no plugin host to fire the compact hook)');
    },
  };
  const version = String((JSON.parse(readFileSync(join(HOST_ROOT, 'package.json'), 'utf8')) as { version?: unknown }).version);
  return { hostVersion: version, services: { ledger: createLedgerService({ compact }, async () => Ledger, { cacheSizeKiB: ONE_SHOT_CACHE_KIB }), terminal: TERMINAL_SERVICE } };
}
