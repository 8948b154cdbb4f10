import { ids, show, turn, type SessionFlags } from './actions.js';
import { withLedger, type LedgerApi } from './ledger-run.js';
import type { Sink } from './output.js';
import { readTextInput } from './text-input.js';

/**
 * The bodies of `pcodx show`, `ids` and `turn` after their flags are parsed, shared by their
 * oclif commands and the fast route (`fast.ts`), so both routes run the same code and print the
 * same bytes. Errors are thrown as the actions throw them.
 */

/** The flags every one of these commands takes. */
export interface ReadFlags extends SessionFlags {
  /** `--db PATH`. */
  readonly db?: string;
}

/** `show [--roles]`: the render of an existing session. */
export async function runShow(api: LedgerApi, flags: ReadFlags & { readonly roles?: boolean }, sink: Sink): Promise<void> {
  await withLedger(api, flags.db, (ledger) => show(ledger, flags, sink), false, flags.session);
}

/** `ids`: the visible ids of an existing session. */
export async function runIds(api: LedgerApi, flags: ReadFlags, sink: Sink): Promise<void> {
  await withLedger(api, flags.db, (ledger) => ids(ledger, flags, sink), false, flags.session);
}

/** `turn --text T | --text-file F`: the text is read (and refused) before the ledger is opened. */
export async function runTurn(api: LedgerApi, flags: ReadFlags & { readonly text?: string; readonly 'text-file'?: string }, sink: Sink): Promise<void> {
  const input = await readTextInput({ text: flags.text, textFile: flags['text-file'] }, { required: true, stdinAllowed: true });
  await withLedger(api, flags.db, (ledger) => turn(ledger, { ...flags, text: input!.text }, sink), true, flags.session);
}
