import { Command } from '@oclif/core';
import { CordonError } from '../errors/index.js';
import { loadHost } from '../bus/load-host.js';
import type { CordonHost } from '../bus/host.js';
import { warnPluginFailures } from './plugin-warnings.js';

/**
 * Base of cordon's own commands: `--json` on everything that reports, a lazily loaded host whose
 * plugin failures are shown once as warnings (a broken plugin never stops an unrelated
 * command), and `CordonError`s turned into oclif errors with their exit code and stable code.
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

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (error instanceof CordonError) {
      // Keep the CordonError's exit code (also under --json, where oclif reads `exitCode`) and its
      // stable code; oclif prints `Error: <message>` or, under --json, the error object.
      // `oclif` and `exitCode` are not enumerable, so `--json` prints just {code, details, message}.
      const wrapped = Object.assign(new Error(error.message), { code: error.code, details: error.details });
      Object.defineProperties(wrapped, { oclif: { value: { exit: error.exit } }, exitCode: { value: error.exit } });
      return super.catch(wrapped as never);
    }
    return super.catch(error);
  }
}
