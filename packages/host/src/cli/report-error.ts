import { Errors } from '@oclif/core';
import { errorDocument, errorText, type ReportedError } from '../output/error-text.js';
import { shownJson } from '../output/json-text.js';

/**
 * Prints `error` as every cordon command does (under `json` {@link errorDocument} on stdout,
 * else {@link errorText} on stderr), sets the exit code, and returns the oclif error to throw so
 * that the process ends with `exit` and oclif prints nothing more (its own rendering would
 * hard-wrap the message at 80 columns on a pipe). Without `json`, `annotation` (a command whose
 * output is read by a CI system: `check --format github`) renders the error once more for that
 * system, printed on stdout as one line before the text.
 */
export function reportError(error: ReportedError, exit: number, json: boolean, annotation?: (error: ReportedError) => string): Errors.ExitError {
  process.exitCode = exit;
  if (json) process.stdout.write(`${shownJson(errorDocument(error), 2)}\n`);
  else {
    if (annotation) process.stdout.write(`${annotation(error)}\n`);
    process.stderr.write(errorText(error.message, error.code));
  }
  return new Errors.ExitError(exit);
}
