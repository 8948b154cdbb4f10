import { closestName } from '../util/closest-name.js';

/** A flag as oclif's parser describes it (`Command.flags`): hidden ones are never suggested. */
interface FlagSpec {
  readonly hidden?: boolean;
  readonly allowNo?: boolean;
}

/** What oclif's `NonExistentFlagsError` carries: the flags as typed and the parse's flag specs. */
interface NonExistentFlags {
  readonly flags?: unknown;
  readonly parse?: { readonly input?: { readonly flags?: unknown } };
}

/**
 * For oclif's refusal of unknown flags (`error`: its `NonExistentFlagsError`, which keeps the
 * flags as typed and the command's flag specs), the flag each mistyped long flag most likely
 * meant: `{"--sesion": "--session"}` (util/closest-name.ts over the command's visible flags, and
 * `--no-<name>` of those that take it). A value given with `=` is left out of the name
 * (`--sesion=x` → `--session`); a single-letter flag (`-x`) gets no guess, nor does a name that
 * is close to none. Empty for any other error.
 */
export function unknownFlagSuggestions(error: unknown): Record<string, string> {
  const e = error as NonExistentFlags | null;
  const specs = e?.parse?.input?.flags;
  if (!Array.isArray(e?.flags) || typeof specs !== 'object' || specs === null) return {};
  const names = Object.entries(specs as Readonly<Record<string, FlagSpec | undefined>>)
    .filter(([, spec]) => spec !== undefined && spec.hidden !== true)
    .flatMap(([name, spec]) => (spec?.allowNo ? [name, `no-${name}`] : [name]));
  const suggestions: Record<string, string> = {};
  for (const typed of e.flags) {
    if (typeof typed !== 'string' || !typed.startsWith('--')) continue;
    const name = typed.slice(2).split('=')[0]!;
    if (name === '') continue;
    const meant = closestName(name, names);
    if (meant !== undefined && meant !== name) suggestions[typed] = `--${meant}`;
  }
  return suggestions;
}
