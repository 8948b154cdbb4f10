import type { LedgerHandle, LedgerService } from '@cordon/plugin-api';

/** How a pcodx command reaches the host's ledger service (the oclif route's host api, or the fast route's). */
export type LedgerApi = () => Promise<{ readonly services: { readonly ledger: LedgerService } }>;

/**
 * Opens the ledger named by `db` (or the environment; created when missing unless `create` is
 * false), runs `fn`, closes it. The command's `--session` (required, so that no command forgets
 * it; undefined when not given), when it cannot be a session name, is refused first as a usage
 * error (exit 2), before anything is opened or created, whatever the state of the ledger; with `create: false` a missing or empty ledger is refused before anything
 * is created, so such a refusal leaves no directory and no file.
 */
export async function withLedger<T>(api: LedgerApi, db: string | undefined, fn: (ledger: LedgerHandle) => Promise<T>, create: boolean, session: string | undefined): Promise<T> {
  const { ledger: service } = (await api()).services;
  if (session !== undefined) service.checkSessionName(session);
  const ledger = await service.open({ db, create });
  try {
    return await fn(ledger);
  } finally {
    await ledger.close();
  }
}
