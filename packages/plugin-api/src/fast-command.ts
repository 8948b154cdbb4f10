import type { LedgerService } from './services/ledger.js';
import type { TerminalService } from './services/terminal.js';

/**
 * What the host hands a plugin's fast command module: the services a command that only reads or
 * records in the ledger needs, without the plugin host (no plugin is loaded, no hook can fire).
 */
export interface FastCommandApi {
  /** Version of the running host. */
  readonly hostVersion: string;
  /** The ledger, and (hosts since it was added) the terminal escaping of `api.services.terminal`. */
  readonly services: { readonly ledger: LedgerService; readonly terminal?: TerminalService };
}

/**
 * A plugin's fast command module (named in its package.json as `cordon.fastCommands.module`, a
 * CommonJS file, with the command ids it serves in `cordon.fastCommands.commands`, such as
 * `pcodx:show`) exports `runFastCommand`. `bin/run.cjs` calls it for those commands before
 * oclif is loaded, with `id` the command id and `args` the arguments after it; a declared topic
 * id (`pcodx`) is called for `cordon pcodx --flag …`, flags before any command. It resolves
 * `'done'` when it ran the command (output written, `process.exitCode` set on failure) and
 * `'fallback'` when it did nothing, so that the same command runs through oclif: any form it
 * does not take (help, a flag it does not know) and any failure it leaves to oclif to report.
 */
export type RunFastCommand = (id: string, args: readonly string[], api: FastCommandApi) => Promise<'done' | 'fallback'>;
