import { CordonError, ERROR_CODES } from '../../errors/index.js';

/**
 * The error every editor throws for a file that does not parse: it names the file and says it was
 * left alone. `details.problem` is what is wrong without what install-hooks does about it, for a
 * reader that edits nothing ({@link configProblem}).
 */
export function unparseable(path: string, format: string, detail: string): CordonError {
  const problem = `${path} is not valid ${format} (${detail})`;
  return new CordonError(ERROR_CODES.CONFIG_UNPARSEABLE, `${problem}; refusing to edit it, the file is left untouched`, {
    details: { path, format, detail, problem },
  });
}

/**
 * What is wrong with an agent config that planning hooks could not read (`error` from
 * `planHooks`), in the words of a reader that edits nothing (`cordon doctor`): the error's
 * `details.problem` (a file that does not parse or cannot be read safely) when it has one, else
 * its message.
 */
export function configProblem(error: unknown): string {
  const problem = (error as { details?: { problem?: unknown } } | null)?.details?.problem;
  return typeof problem === 'string' ? problem : error instanceof Error ? error.message : String(error);
}
