import { exitCodeOf, isReportable } from './errors.js';
import { jsonSink, processSink, terminalSink, type Sink } from './output.js';

/**
 * Where one run of a pcodx command prints, the same on the oclif route (`PcodxCommand`) and the
 * fast route (`fast.ts`): the process streams, or under `--json` a collector printed as one
 * object when the action has finished.
 */
export interface CommandOutput {
  /** The sink the action prints to. */
  readonly sink: Sink;
  /** Under `--json`, prints what the action printed as one object; otherwise nothing. */
  finish(): void;
  /**
   * Prints a failure the user can act on (`isReportable`): `error: <message>` on stderr, or under
   * `--json` `{"error": {"message"}}` on stdout; sets exit code 2 for a usage error, else 1
   * (`exitCodeOf`). Returns false, printing
   * nothing, for any other error (the caller's own handler reports it).
   */
  fail(error: unknown): boolean;
}

/**
 * A {@link CommandOutput} for a run with or without `--json`. Without it, when stdout is a
 * terminal and the host lends its terminal escaping (`escape`, `api.services.terminal.lines`),
 * stdout is escaped for the terminal (`terminalSink`); piped or redirected, it is printed byte for
 * byte (a render is the prompt Codex gets: docs/pcodx.md).
 */
export function commandOutput(json: boolean | undefined, escape?: (text: string) => string): CommandOutput {
  const collector = json ? jsonSink() : undefined;
  const terminal = !collector && escape && process.stdout.isTTY ? terminalSink(escape) : undefined;
  return {
    sink: collector ?? terminal ?? processSink,
    finish: () => {
      if (collector) process.stdout.write(`${JSON.stringify(collector.document(), null, 2)}\n`);
    },
    fail: (error) => {
      if (!isReportable(error)) return false;
      const message = (error as Error).message;
      if (collector) process.stdout.write(`${JSON.stringify({ error: { message } }, null, 2)}\n`);
      else process.stderr.write(`error: ${message}\n`);
      process.exitCode = exitCodeOf(error);
      return true;
    },
  };
}
