import type { ConfigDocument, HookListEditor, HookListLayout } from '@cordon/plugin-api';

type Fields = Record<string, unknown>;

/** The `hooks` map of a config value, when it is a map. */
function hooksOf(value: unknown): Fields | undefined {
  const hooks = (value as { hooks?: unknown } | null)?.hooks;
  return hooks && typeof hooks === 'object' && !Array.isArray(hooks) ? (hooks as Fields) : undefined;
}

/** The handlers of one list entry: the entry itself (`flat`) or its group's `hooks` list (`grouped`). */
function handlersOf(entry: unknown, layout: HookListLayout): unknown[] {
  if (layout === 'flat') return [entry];
  const list = (entry as { hooks?: unknown } | null)?.hooks;
  return Array.isArray(list) ? list : [];
}

/**
 * See {@link HookListEditor.removeCommands}. Works back to front through each event's list, so
 * the positions still to visit stay valid while later entries go; `doc.value` is re-read after
 * the removals because the editors return a fresh value after every edit.
 */
function removeCommands(doc: ConfigDocument, options: { readonly layout: HookListLayout; readonly isOurs: (command: unknown) => boolean; readonly keep?: string }): Set<string> {
  const { layout, isOurs, keep } = options;
  const kept = new Set<string>();
  const hooks = hooksOf(doc.value);
  if (!hooks) return kept;
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) continue;
    for (let e = entries.length - 1; e >= 0; e--) {
      const handlers = handlersOf(entries[e], layout);
      let remaining = handlers.length;
      for (let h = handlers.length - 1; h >= 0; h--) {
        const command = (handlers[h] as { command?: unknown } | null)?.command;
        if (!isOurs(command)) continue;
        if (keep !== undefined && command === keep && !kept.has(event)) {
          kept.add(event);
          continue;
        }
        // A group whose last handler goes goes with it.
        if (layout === 'flat' || remaining === 1) doc.remove(['hooks', event, e]);
        else doc.remove(['hooks', event, e, 'hooks', h]);
        remaining--;
      }
    }
    const list = hooksOf(doc.value)?.[event];
    if (Array.isArray(list) && list.length === 0) doc.remove(['hooks', event]);
  }
  // An install (`keep` given) adds to the map next, so an emptied map stays where the user had it.
  const left = hooksOf(doc.value);
  if (keep === undefined && left && Object.keys(left).length === 0) doc.remove(['hooks']);
  return kept;
}

/** The `hooks` map editor lent to hook installers (`InstallContext.hookLists`). */
export const hookLists: HookListEditor = Object.freeze({ removeCommands });
