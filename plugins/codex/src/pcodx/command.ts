import { Command, Errors, Flags } from '@oclif/core';
import type { LedgerHandle } from '@cordon/plugin-api';
import { commandOutput, type CommandOutput } from './command-output.js';
import { PcodxUsageError } from './errors.js';
import { hostApi } from './host-api.js';
import { withLedger } from './ledger-run.js';
import type { Sink } from './output.js';
import type { LoopEnd } from './interactive.js';

/** `--json` of the pcodx commands that print data (not the interactive loops or serve). */
export const jsonFlag = {
  json: Flags.boolean({ summary: 'Print one JSON object instead of lines: each key=value as a field (repeated keys as arrays), a render as "render", other lines as "lines"; errors as {"error": {"message"}}.' }),
};

/**
 * `--cwd DIR`: a directory that must exist, checked while oclif parses the flag as the host
 * checks its own directory flags (the host's check, lent as `api.services.files`): a missing
 * path or a file is refused before the command does anything, `--cwd /x: no such directory`, as
 * a usage error (exit 2), which the host prints as every cordon usage error (`CORDON_BAD_INPUT`).
 * The value is kept as typed.
 */
export const cwdFlag = Flags.custom<string>({
  parse: async (input, _context, flag) => {
    const why = (await hostApi()).services.files.directoryProblem(input);
    if (why !== undefined) throw new Errors.CLIError(`--${flag.name} ${input}: ${why}`, { exit: 2 });
    return input;
  },
});

/**
 * Base of the `cordon pcodx` commands: the global `--db`, `--session` and `--cwd` (an existing
 * directory: {@link cwdFlag}) flags, the
 * ledger opened through the host api and closed afterwards, and errors printed as
 * `error: <message>` on stderr with exit code 1 (the Rust pcodx, SichangHe/partial_compact_codex), 2 for a usage error
 * ({@link reportFailure}, flag-parsing mistakes included; under `--json` those go on to the host,
 * which reports them as every cordon usage error: its `finally` hook, `CORDON_BAD_INPUT`, exit 2).
 */
export abstract class PcodxCommand extends Command {
  static override baseFlags = {
    db: Flags.string({ summary: 'Ledger database file (default: $PCODX_DB, else $XDG_DATA_HOME/pcodx/pcodx.sqlite3).', helpGroup: 'GLOBAL' }),
    session: Flags.string({ summary: 'Session name (default: the last-written session).', helpGroup: 'GLOBAL' }),
    cwd: cwdFlag({ summary: 'Working directory recorded for a new session (resume: instead of the stored one); must exist.', helpGroup: 'GLOBAL' }),
  };

  /**
   * Opens (creating it if needed) the ledger named by `--db` (or the environment), runs `fn`,
   * closes it (`withLedger` of ledger-run.ts, through the host api).
   */
  protected async withLedger<T>(db: string | undefined, fn: (ledger: LedgerHandle) => Promise<T>, create: boolean, session: string | undefined): Promise<T> {
    return withLedger(hostApi, db, fn, create, session);
  }

  /**
   * {@link withLedger} for commands that need a session that exists: a missing (or empty) ledger
   * is refused before anything is created, so such a refusal leaves no directory and no file.
   */
  protected async withExistingLedger<T>(db: string | undefined, fn: (ledger: LedgerHandle) => Promise<T>, session: string | undefined): Promise<T> {
    return this.withLedger(db, fn, false, session);
  }

  #output?: CommandOutput;

  /**
   * Where the command's action prints: the process streams (stderr, and stdout when it is a
   * terminal, escaped through the host's `api.services.terminal`), or under `--json` a collector.
   */
  protected async sink(json: boolean | undefined): Promise<Sink> {
    this.#output = commandOutput(json, await terminalEscape());
    return this.#output.sink;
  }

  /** Under `--json`, prints what the action printed as one object (call once it has finished). */
  protected async printJson(): Promise<void> {
    await this.#output?.finish();
  }

  /**
   * Ends the process as the interactive loop ended: after Ctrl-C as every cordon command ends on
   * SIGINT (dying of it, exit status 130: the host's `api.services.process.endLike`), so a shell
   * script around it stops too; otherwise normally (exit 0).
   */
  protected async endLoop(end: LoopEnd): Promise<void> {
    if (end === 'interrupt') (await hostApi()).services.process.endLike({ code: null, signal: 'SIGINT' });
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (await reportFailure(this, error, { output: this.#output })) return undefined;
    return super.catch(error);
  }
}

/**
 * The one way a pcodx oclif command reports its failure (`PcodxCommand.catch`, and `pcodx
 * prompts`, which has no ledger flags): through `output` (the command's own, under `--json` its
 * collector), else a new one (`--json` when `json`), a failure the user can act on is printed as
 * every pcodx error is (`CommandOutput.fail`: `error: …` escaped by the host's
 * `api.services.terminal`, or `{"error": {"message"}}`; exit 2 for a usage error, else 1). oclif's
 * parse errors and a flag's own refusal (`--role bogus`, `--cwd /x`) are usage errors in the
 * host's words (`api.services.usage.message`), except under `--json`, where the host prints its
 * own document. Returns false, printing nothing, for any other error: the caller hands it to
 * oclif's `catch` (and the host's `finally` hook).
 */
export async function reportFailure(command: Command, error: unknown, how: { output?: CommandOutput; json?: boolean }): Promise<boolean> {
  const api = await hostApi().catch(() => undefined);
  const terminal = api?.services.terminal;
  // An error thrown before the action chose its output (reading --text-file) is printed as one after.
  const output = how.output ?? commandOutput(how.json, terminal ? (text) => terminal.lines(text) : undefined);
  if (output.fail(error)) return true;
  const usage = api?.services.usage;
  if (!usage || !isUsageSlip(error) || command.argv.includes('--json')) return false;
  return output.fail(new PcodxUsageError(usage.message(error, `${command.config.bin} ${(command.id ?? 'pcodx').replaceAll(':', ' ')}`)));
}

/** An error oclif raised for the command line itself (a parse error, a flag's own check): exit 2 and not `this.exit()`. */
export function isUsageSlip(error: unknown): error is Error {
  const e = error as { code?: unknown; oclif?: { exit?: unknown } } | null;
  return error instanceof Error && e?.oclif?.exit === 2 && e.code !== 'EEXIT';
}

/** The host's terminal escaping (`api.services.terminal.lines`), or undefined where the host lends none. */
export async function terminalEscape(): Promise<((text: string) => string) | undefined> {
  const terminal = (await hostApi().catch(() => undefined))?.services.terminal;
  return terminal ? (text) => terminal.lines(text) : undefined;
}

/** `--text` / `--text-file` for the commands that take a prompt or message. */
export const textFlags = {
  text: Flags.string({ summary: 'The text, exactly as given.' }),
  'text-file': Flags.string({ summary: 'Read the text from this file (UTF-8, kept byte for byte); - reads stdin where the command allows it.' }),
};
