import { Errors } from '@oclif/core';
import { errorDocument, errorText, type ReportedError } from '../output/error-text.js';

/**
 * Prints `error` as every cordon command does (under `json` {@link errorDocument} on stdout,
 * else {@link errorText} on stderr), sets the exit code, and returns the oclif error to throw so
 * that the process ends with `exit` and oclif prints nothing more (its own rendering would
 * hard-wrap the message at 80 columns on a pipe).
 */
export function reportError(error: ReportedError, exit: number, json: boolean): Errors.ExitError {
  process.exitCode = exit;
  if (json) process.stdout.write(`${JSON.stringify(errorDocument(error), null, 2)}\n`);
  else process.stderr.write(errorText(error.message, error.code));
  return new Errors.ExitError(exit);
}
