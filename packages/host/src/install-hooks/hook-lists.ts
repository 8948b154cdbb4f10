import type { ConfigDocument, HookCommand, HookListEditor, HookListLayout, RemoveCommandsOptions } from '@cordon/plugin-api';

import { goneProgram } from './gone-program.js';

type Fields = Record<string, unknown>;

/**
 * Per `removed` list an install filled: the old cordon commands it took out whose program no
 * longer exists, by what they pointed to (`a cordon that no longer exists at /old/bin/run.cjs`),
 * with the events and the `removed` lines concerned, so {@link summary} can say the command was
 * replaced instead of listing an add and a removal per event.
 */
const goneByList = new WeakMap<readonly string[], Map<string, { events: string[]; lines: Set<string> }>>();

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
 * True when an entry's matcher lets every tool (and every session source) through: absent, `""`
 * or `"*"` — the agents agree on these (the Claude Code hooks reference).
 */
export function coversEverything(entry: unknown): boolean {
  const matcher = (entry as { matcher?: unknown } | null)?.matcher;
  return matcher === undefined || matcher === null || matcher === '' || matcher === '*';
}

/** Where a handler sits, in words: `PreToolUse entry 2 (matcher "Bash")`. */
function where(event: string, entry: unknown, index: number): string {
  const matcher = (entry as { matcher?: unknown } | null)?.matcher;
  return `${event} entry ${index + 1}${matcher === undefined || matcher === null ? '' : ` (matcher ${JSON.stringify(matcher)})`}`;
}

/**
 * See {@link HookListEditor.removeCommands}. First finds, per event, the handler to keep (the
 * first covering copy of `keep`), then works back to front through each event's list, so the
 * positions still to visit stay valid while later entries go; `doc.value` is re-read after the
 * removals because the editors return a fresh value after every edit.
 */
function removeCommands(doc: ConfigDocument, options: RemoveCommandsOptions): Set<string> {
  const { layout, isOurs, keep, removed } = options;
  const kept = new Set<string>();
  const hooks = hooksOf(doc.value);
  if (!hooks) return kept;
  // Whether this call took anything out: only a list (or map) it emptied goes, never one the user left empty.
  let anyRemoved = false;
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) continue;
    let keepAt: [number, number] | undefined;
    if (keep !== undefined) {
      for (let e = 0; e < entries.length && !keepAt; e++) {
        if (!coversEverything(entries[e])) continue;
        const h = handlersOf(entries[e], layout).findIndex((x) => (x as { command?: unknown } | null)?.command === keep);
        if (h >= 0) keepAt = [e, h];
      }
    }
    if (keepAt) kept.add(event);
    let removedHere = false;
    for (let e = entries.length - 1; e >= 0; e--) {
      const handlers = handlersOf(entries[e], layout);
      let remaining = handlers.length;
      for (let h = handlers.length - 1; h >= 0; h--) {
        const command = (handlers[h] as { command?: unknown } | null)?.command;
        if (!isOurs(command)) continue;
        if (keepAt && keepAt[0] === e && keepAt[1] === h) continue;
        // A group whose last handler goes goes with it.
        if (layout === 'flat' || remaining === 1) doc.remove(['hooks', event, e]);
        else doc.remove(['hooks', event, e, 'hooks', h]);
        remaining--;
        removedHere = true;
        const gone = keep !== undefined && command !== keep && typeof command === 'string' ? goneProgram(command) : undefined;
        if (removed && gone) {
          const pointed = `a ${gone.what} that no longer exists at ${gone.path}`;
          const line = `${where(event, entries[e], e)}: removed an old hook command that pointed to ${pointed}`;
          removed.push(line);
          const byList = goneByList.get(removed) ?? new Map<string, { events: string[]; lines: Set<string> }>();
          goneByList.set(removed, byList);
          const entry = byList.get(pointed) ?? { events: [], lines: new Set<string>() };
          byList.set(pointed, entry);
          if (!entry.events.includes(event)) entry.events.push(event);
          entry.lines.add(line);
        } else if (removed) {
          const why =
            keep === undefined
              ? 'cordon handler'
              : command !== keep
                ? `cordon handler with another command (${String(command)})`
                : coversEverything(entries[e])
                  ? 'duplicate cordon handler'
                  : 'cordon handler limited to some tools (cordon needs every tool; its own entry covers them)';
          removed.push(`${where(event, entries[e], e)}: removed ${why}`);
        }
      }
    }
    if (!removedHere) continue;
    anyRemoved = true;
    const list = hooksOf(doc.value)?.[event];
    if (Array.isArray(list) && list.length === 0) doc.remove(['hooks', event]);
  }
  // An install (`keep` given) adds to the map next, so an emptied map stays where the user had it.
  const left = hooksOf(doc.value);
  if (keep === undefined && anyRemoved && left && Object.keys(left).length === 0) doc.remove(['hooks']);
  return kept;
}

/**
 * See {@link HookListEditor.summary}. An old command whose cordon (or node) is gone, removed from
 * an event cordon is added to again, is said as what it is, a replacement: `the old hook command
 * pointed to a cordon that no longer exists at /old/bin/run.cjs: replace it with this cordon's in
 * PreToolUse, PostToolUse`.
 */
function summary(added: readonly string[], removed: readonly string[]): string {
  const replacedParts: string[] = [];
  const replacedEvents = new Set<string>();
  const replacedLines = new Set<string>();
  for (const [pointed, { events, lines }] of goneByList.get(removed) ?? []) {
    const replaced = events.filter((e) => added.includes(e));
    if (replaced.length === 0) continue;
    replacedParts.push(`the old hook command pointed to ${pointed}: replace it with this cordon's in ${replaced.join(', ')}`);
    for (const e of replaced) replacedEvents.add(e);
    for (const line of lines) if (replaced.some((e) => line.startsWith(`${e} `))) replacedLines.add(line);
  }
  const newlyAdded = added.filter((e) => !replacedEvents.has(e));
  const otherRemoved = removed.filter((r) => !replacedLines.has(r));
  const parts = [...replacedParts, ...(newlyAdded.length ? [`add cordon to ${newlyAdded.join(', ')}`] : []), ...(otherRemoved.length ? [`removed: ${otherRemoved.join('; ')}`] : [])];
  return parts.join('; ') || 'rewrite the cordon entries';
}

/** The `hooks` map editor with the installers' own `isOurs` alone (see {@link hookListsFor}). */
export const hookLists: HookListEditor = Object.freeze({ removeCommands, summary });

/**
 * The `hooks` map editor lent to hook installers (`InstallContext.hookLists`) for an install
 * writing `command`: besides what the installer's `isOurs` recognises (cordon's own command
 * shapes), a handler whose command is exactly one of `command`'s forms counts as cordon's, so
 * hooks installed with `--command` (a wrapper, any path) are found again by an uninstall or a
 * re-install given the same `--command`.
 */
export function hookListsFor(command: Pick<HookCommand, 'shell' | 'powershell' | 'cmd'>): HookListEditor {
  const written = new Set([command.shell, command.powershell, command.cmd]);
  return Object.freeze({
    removeCommands: (doc: ConfigDocument, options: RemoveCommandsOptions) => removeCommands(doc, { ...options, isOurs: (c: unknown) => (typeof c === 'string' && written.has(c)) || options.isOurs(c) }),
    summary,
  });
}
