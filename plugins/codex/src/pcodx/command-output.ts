import { isTerminal, writeOutput } from '@cordon/plugin-api';
import { exitCodeOf, isReportable } from './errors.js';
import { escapedSink, jsonSink, processSink, type Sink } from './output.js';

/**
 * Where one run of a pcodx command prints, the same on the oclif route (`PcodxCommand`) and the
 * fast route (`fast.ts`): the process streams, or under `--json` a collector printed as one
 * object when the action has finished.
 */
export interface CommandOutput {
  /** The sink the action prints to. */
  readonly sink: Sink;
  /**
   * Under `--json`, prints what the action printed as one object, in pieces, each waited for when
   * the descriptor asks to (a render's JSON may be hundreds of MB); otherwise nothing.
   */
  finish(): Promise<void>;
  /**
   * Prints a failure the user can act on (`isReportable`): `error: <message>` on stderr, or under
   * `--json` `{"error": {"message"}}` on stdout, the message escaped for a terminal as the host
   * escapes its own errors (it may quote a path or id as typed); sets exit code 2 for a usage
   * error, else 1 (`exitCodeOf`). Returns false, printing nothing, for any other error (the
   * caller's own handler reports it).
   */
  fail(error: unknown): boolean;
}

/**
 * A {@link CommandOutput} for a run with or without `--json`. `escape` is the host's terminal
 * escaping (`api.services.terminal.lines`; a host before it lends none). With it, what goes to
 * stderr and every error message is escaped always, as the host's own errors are
 * (packages/host/src/output/error-text.ts); stdout only when it is a terminal and there is no
 * `--json` (`escapedSink`): piped or redirected, a render is printed byte for byte (it is the
 * prompt Codex gets: docs/pcodx.md).
 */
export function commandOutput(json: boolean | undefined, escape?: (text: string) => string): CommandOutput {
  const collector = json ? jsonSink() : undefined;
  const shown = escape ?? ((text: string) => text);
  return {
    sink: collector ?? (escape ? escapedSink(escape, isTerminal(1)) : processSink),
    finish: async () => {
      if (!collector) return;
      // In pieces: the whole text may be longer than one JavaScript string can hold.
      for (const piece of collector.jsonText()) {
        const written = writeOutput(1, piece);
        if (written === false) return;
        if (written) await written;
      }
    },
    fail: (error) => {
      if (!isReportable(error)) return false;
      const message = shown((error as Error).message);
      if (collector) void writeOutput(1, `${JSON.stringify({ error: { message } }, null, 2)}\n`);
      else void writeOutput(2, `error: ${message}\n`);
      process.exitCode = exitCodeOf(error);
      return true;
    },
  };
}
