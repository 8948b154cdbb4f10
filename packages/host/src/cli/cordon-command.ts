import { format } from 'node:util';
import { Command } from '@oclif/core';
import { ERROR_CODES } from '../errors/index.js';
import type { CordonHost } from '../bus/host.js';
import { warnPluginFailures } from './plugin-warnings.js';
import { clearStatus } from '../output/status.js';
import { errorDocument, type ReportedError } from '../output/error-text.js';
import { terminalLines } from '../output/terminal.js';
import { commandFlags, reportCommandError } from './command-error.js';
import { haltIfInterrupted } from '../process/interrupt.js';
import { shownJson } from '../output/json-text.js';

/**
 * Base of cordon's own commands: `--json` on everything that reports, a lazily loaded host whose
 * plugin failures are shown once as warnings (a broken plugin never stops an unrelated
 * command), and `CordonError`s turned into oclif errors with their exit code and stable code;
 * oclif's own usage errors become `CORDON_BAD_INPUT` with exit 2, under --json too.
 */
export abstract class CordonCommand extends Command {
  static override enableJsonFlag = true;

  #host?: Promise<CordonHost>;

  /** The plugin host, with every installed plugin applied. */
  protected host(): Promise<CordonHost> {
    // Imported here: the host's module graph (about 80 modules) loads only for a command that asks.
    this.#host ??= import('../bus/load-host.js').then(({ loadHost }) => loadHost(this.config)).then(warnPluginFailures);
    return this.#host;
  }

  /**
   * Every line a command prints through oclif (`this.log`, `this.logToStderr`, `this.warn`) is
   * escaped for a terminal (output/terminal.ts `terminalLines`: line breaks and tabs kept, every
   * other control character and invisible format character written as `\u001b`): what a command
   * prints names paths, sessions and plugins, any of which may hold an escape sequence (a work
   * tree at `re<ESC>[7mpo`, a `CORDON_DATA_DIR`). Text escaped already passes unchanged, since the
   * escapes are printable. `--json` output (`logJson`) is JSON's own escaping, not this.
   */
  override log(message: unknown = '', ...args: unknown[]): void {
    super.log(shownLine(message, args));
  }

  override logToStderr(message: unknown = '', ...args: unknown[]): void {
    super.logToStderr(shownLine(message, args));
  }

  override warn(input: string | Error): string | Error {
    return super.warn(typeof input === 'string' ? terminalLines(input) : Object.assign(input, { message: terminalLines(input.message) }));
  }

  /**
   * Plain pretty JSON for `--json`: oclif's colorizing tokenizer costs a noticeable share of a
   * command's wall time on large reports (an audit of thousands of paths), and without a theme
   * its output is the same text.
   */
  override logJson(json: unknown): void {
    process.stdout.write(`${shownJson(json, 2)}\n`);
  }

  /**
   * The `--json` error document, one shape for every command and fast route (output/error-text.ts
   * `errorDocument`; oclif's own would add `name`, and leave `details` out for a usage error). An
   * error without a string code is `CORDON_INTERNAL`.
   */
  override toErrorJson(error: unknown): unknown {
    const e = (error ?? {}) as { code?: unknown; details?: unknown; message?: unknown };
    return errorDocument({ code: typeof e.code === 'string' ? e.code : ERROR_CODES.INTERNAL, details: e.details, message: typeof e.message === 'string' ? e.message : String(error) });
  }

  protected override async catch(error: Error & { exitCode?: number; code?: unknown; oclif?: { exit?: unknown } }): Promise<unknown> {
    // A status line still drawn (a step that threw) goes before the error is printed.
    clearStatus();
    // What failed because an interrupt ended it (git, a verifier) is not reported: the process
    // ends by the signal once the interrupt's cleanups have run.
    await haltIfInterrupted();
    // `this.exit(n)`: nothing to print, only the exit code.
    if (error.code === 'EEXIT' && typeof error.oclif?.exit === 'number') {
      process.exitCode = error.oclif.exit;
      throw error;
    }
    // Cordon's errors and oclif's own (a nonexistent flag, a value that fails its flag's parse, a
    // missing argument, `this.error(…)`), in one line (command-error.ts). Under --json oclif would
    // print every enumerable property of the error, a parse error's whole command configuration
    // included (160 KB), and exit 1 since only `oclif.exit` says 2.
    const reported = reportCommandError(error, { config: this.config, id: this.id, args: this.ctor.args, flags: commandFlags(this.ctor), json: this.jsonEnabled(), annotation: this.errorAnnotation() });
    if (reported) throw reported;
    return super.catch(error);
  }

  /**
   * How a refusal is rendered once more for a CI system reading this command's stdout, or
   * undefined (the default: only `Error:` on stderr). `check --format github` prints an `::error`
   * workflow command. Read from the command line as typed, since a refusal may come before or
   * while the flags are parsed.
   */
  protected errorAnnotation(): ((error: ReportedError) => string) | undefined {
    return undefined;
  }
}

/** `util.format(message, ...args)` (what oclif's `log` prints) escaped for a terminal. */
function shownLine(message: unknown, args: readonly unknown[]): string {
  return terminalLines(format(message, ...args));
}
