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

/**
 * The error an editor throws when asked to add to a list (`ConfigDocument.append`) where the file
 * holds something else at `label` (`hooks.PreToolUse` an object, a string, a number): replacing it
 * would drop what the user wrote, so nothing is written (`CORDON_CONFIG_EDIT`). An absent key or
 * `null` is no list yet and gets one.
 */
export function notAList(path: string, label: string, found: unknown): CordonError {
  const kind = typeof found === 'object' ? 'an object' : typeof found === 'string' ? 'a string' : typeof found === 'number' ? 'a number' : typeof found === 'boolean' ? 'a boolean' : `a ${typeof found}`;
  return new CordonError(ERROR_CODES.CONFIG_EDIT, `${path}: ${label} holds ${kind} where the agent expects a list of hooks; cordon does not replace it, which would drop what is there: make it a list or remove it, then run again; the file is left untouched`, {
    details: { path, key: label, problem: `${path}: ${label} holds ${kind}, not a list of hooks` },
  });
}
