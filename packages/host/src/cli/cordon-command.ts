import { Command } from '@oclif/core';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { loadHost } from '../bus/load-host.js';
import type { CordonHost } from '../bus/host.js';
import { warnPluginFailures } from './plugin-warnings.js';
import { clearStatus } from '../output/status.js';
import { terminalLines } from '../output/terminal.js';

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
    this.#host ??= loadHost(this.config).then(warnPluginFailures);
    return this.#host;
  }

  /**
   * Plain pretty JSON for `--json`: oclif's colorizing tokenizer costs a noticeable share of a
   * command's wall time on large reports (an audit of thousands of paths), and without a theme
   * its output is the same text.
   */
  override logJson(json: unknown): void {
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  }

  protected override async catch(error: Error & { exitCode?: number; code?: unknown; oclif?: { exit?: unknown } }): Promise<unknown> {
    // A status line still drawn (a step that threw) goes before the error is printed.
    clearStatus();
    // A message may quote what an agent wrote (a path, a command, a driver's error): escaped for the terminal.
    if (error instanceof CordonError) return super.catch(plainError(terminalLines(error.message), error.code, error.exit, error.details) as never);
    const exit = error.oclif?.exit;
    if (typeof exit === 'number') {
      // `this.exit(n)`: nothing to print, only the exit code.
      if (error.code === 'EEXIT') {
        process.exitCode = exit;
        throw error;
      }
      // oclif's own errors (a nonexistent flag, a value that fails its flag's parse, a missing
      // argument, `this.error(…)`) are bad input. Under --json oclif would print every enumerable
      // property of the error, a parse error's whole command configuration included (160 KB),
      // and exit 1 since only `oclif.exit` says 2.
      return super.catch(plainError(error.message, typeof error.code === 'string' ? error.code : ERROR_CODES.BAD_INPUT, exit) as never);
    }
    return super.catch(error);
  }
}

/**
 * An error oclif prints as cordon's own: `Error: <message>` (and `Code: <code>`), or under --json
 * `{"error": {code, details, message}}`, exiting with `exit` (oclif reads `exitCode` under --json
 * and `oclif.exit` otherwise; neither is enumerable, so neither is printed).
 */
function plainError(message: string, code: string, exit: number, details?: unknown): Error {
  const error = Object.assign(new Error(message), details === undefined ? { code } : { code, details });
  Object.defineProperties(error, { oclif: { value: { exit } }, exitCode: { value: exit } });
  return error;
}
