/**
 * Name suggestions lent to plugins (`api.services.names`), so that a plugin's answer to a typo
 * picks the same name the host's own answers pick (`cordon chek` → "Did you mean `cordon
 * check`?", `--sesion` → "did you mean --session?").
 */
export interface NameService {
  /**
   * The name of `names` a user most likely meant by `typed`, or undefined when none is close: the
   * nearest by edit distance (Levenshtein, two neighbouring characters swapped counting as one
   * edit) when at most a third of the longer name's characters differ, or two for names of five
   * characters or more (`recrod` → `record`, `compact-mnay` → `compact-many`, not `compact`);
   * among equally near names one that starts with what was typed or is its start; when none is
   * near, the one name that starts with what was typed or is its start (`rec` → `record`), if only
   * one does. A name equal to `typed` is returned as it is; an empty `typed` gets none. The host's
   * `closestName` (packages/host/src/util/closest-name.ts), behind its unknown commands, flags
   * and registry entries.
   */
  closest(typed: string, names: Iterable<string>): string | undefined;
}
