import { CordonError, ERROR_CODES } from '../../errors/index.js';

/**
 * What is wrong with a config file that cannot be edited as it stands:
 * - `syntax`: it does not parse as `format` at all;
 * - `shape`: it parses, but where the agent reads hooks it holds something else (`{"hooks":
 *   null}`, a top-level list);
 * - `ambiguous`: it parses, but a key is given twice, and readers disagree on which one counts
 *   (RFC 8259 section 4: names SHOULD be unique, and behaviour otherwise is unpredictable).
 */
export type UnparseableKind = 'syntax' | 'shape' | 'ambiguous';

/**
 * The error every editor throws for a file it cannot read as the agent's config
 * (`CORDON_CONFIG_UNPARSEABLE`): it names the file, says what is wrong in the words of `kind`
 * ({@link UnparseableKind}) and that the file was left alone. `details.problem` is what is wrong
 * without what install-hooks does about it, for a reader that edits nothing ({@link configProblem}).
 */
export function unparseable(path: string, format: string, detail: string, kind: UnparseableKind = 'syntax'): CordonError {
  const problem =
    kind === 'syntax' ? `${path} is not valid ${format} (${detail})` : kind === 'shape' ? `${path} is ${format} of another shape than the agent reads (${detail})` : `${path} is ambiguous ${format} (${detail})`;
  return new CordonError(ERROR_CODES.CONFIG_UNPARSEABLE, `${problem}; refusing to edit it, the file is left untouched`, {
    details: { path, format, detail, problem, kind },
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

/** `value` in words for a message: `null`, `a list`, `a string`, `a number`, `a boolean`, `an object`. */
export function kindWords(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * The error an editor throws when asked to add to a list (`ConfigDocument.append`) where the file
 * holds something else at `label` (`hooks.PreToolUse` an object, a string, a number): replacing it
 * would drop what the user wrote, so nothing is written (`CORDON_CONFIG_EDIT`). An absent key or
 * `null` is no list yet and gets one.
 */
export function notAList(path: string, label: string, found: unknown): CordonError {
  const kind = kindWords(found);
  return new CordonError(ERROR_CODES.CONFIG_EDIT, `${path}: ${label} holds ${kind} where the agent expects a list of hooks; cordon does not replace it, which would drop what is there: make it a list or remove it, then run again; the file is left untouched`, {
    details: { path, key: label, problem: `${path}: ${label} holds ${kind}, not a list of hooks` },
  });
}
