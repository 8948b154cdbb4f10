import { Command } from '@oclif/core';
import { CordonError } from '../errors/index.js';
import { loadHost } from '../bus/load-host.js';
import type { CordonHost } from '../bus/host.js';

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
    this.#host ??= loadHost(this.config).then((host) => {
      // Unwrapped, on stderr even under --json: stdout stays machine-readable.
      for (const failure of host.failures) process.stderr.write(`warning: ${failure.message}\n`);
      return host;
    });
    return this.#host;
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (error instanceof CordonError) {
      // Keep the CordonError's own exit code and code; oclif prints `Error: <message>` or, under --json, the error object.
      const wrapped = Object.assign(new Error(error.message), { oclif: { exit: error.exit }, exitCode: error.exit, code: error.code, details: error.details });
      return super.catch(wrapped as never);
    }
    return super.catch(error);
  }
}
