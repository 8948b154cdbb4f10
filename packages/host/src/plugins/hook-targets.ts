/** One `cordon:register` entry of a plugin's `oclif.hooks`, normalised. */
export interface HookTarget {
  /** Module path relative to the plugin root. */
  readonly target: string;
  /** Export to call; oclif's default is `default`. */
  readonly identifier: string;
}

/**
 * Reads `oclif.hooks['cordon:register']` from a plugin's package.json in any form oclif accepts:
 * a path, `{target, identifier}`, or a list of either.
 */
export function registerTargets(pjson: { oclif?: { hooks?: Record<string, unknown> } }): HookTarget[] {
  const raw = pjson.oclif?.hooks?.['cordon:register'];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const out: HookTarget[] = [];
  for (const item of list) {
    if (typeof item === 'string') out.push({ target: item, identifier: 'default' });
    else if (item && typeof item === 'object' && typeof (item as { target?: unknown }).target === 'string') {
      const { target, identifier } = item as { target: string; identifier?: unknown };
      out.push({ target, identifier: typeof identifier === 'string' ? identifier : 'default' });
    }
  }
  return out;
}
