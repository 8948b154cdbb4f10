import type { Command, Interfaces } from '@oclif/core';
import { cutText } from '@cordon/plugin-api';

/**
 * What oclif's shell completion (`@oclif/plugin-autocomplete` 3.2) may put in its scripts.
 *
 * Its generators paste every plugin's command ids, aliases, flag names, option values and
 * summaries into double-quoted bash, zsh and PowerShell strings, escaping only `"`, `` ` ``, `[`
 * and `]` (and in PowerShell `"` and `` ` ``), and render each summary as an EJS template first.
 * A plugin command whose summary says `costs $(cat ~/.aws/credentials)` ran that command in the
 * user's shell at every <TAB> (zsh's `_values`, PowerShell's `"…"`), a flag named `--x$(cmd)` did
 * the same in bash's command list, a newline or a `“` (PowerShell closes a string at it) broke the
 * script, and a stray `<%` failed the whole cache. The completion commands therefore see copies
 * of the command lists ({@link makeCompletionSafe}) where
 *
 * - ids, aliases, flag names, flag characters and option values are kept only when they are
 *   plain words ({@link COMPLETION_WORD}); a command whose id is not is left out of completion
 *   (it still runs and has help), a flag or alias likewise;
 * - summaries and descriptions are one line of {@link completionText}.
 *
 * What runs, and `cordon help`, are unchanged: oclif built its command table before.
 */

/** A word a completion script may hold unquoted: letters, digits, `:` `_` `.` `-`, not starting with punctuation. */
export const COMPLETION_WORD = /^[A-Za-z0-9][A-Za-z0-9:_.-]*$/;

/** How many characters of a summary completion shows. */
const TEXT_MAX = 200;

/**
 * `text` as a completion script may quote it in any of its shells: its first line only, cut at
 * {@link TEXT_MAX} characters, with every character that a double-quoted bash, zsh or PowerShell
 * string acts on, or that oclif's own escaping gets wrong, replaced: `$` and `\` dropped, `"` and
 * `` ` `` and the typographic double quotes PowerShell reads as `"` (U+201C–U+201E) as `'`, `[`
 * `]` as `(` `)`, EJS's `<%` and `%>` as `< %` and `% >`, and control, format and separator characters (C0, C1,
 * bidirectional controls, U+2028/U+2029) as a space.
 */
export function completionText(text: string | undefined): string {
  if (text === undefined) return '';
  const first = text.split(/\r\n|[\n\r\u0085\u2028\u2029]/)[0] ?? '';
  const plain = first
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/[$\\]/g, '')
    .replace(/["`\u201c\u201d\u201e\u201f]/g, "'")
    .replace(/\[/g, '(')
    .replace(/\]/g, ')')
    .replace(/<%/g, '< %')
    .replace(/%>/g, '% >')
    .replace(/ {2,}/g, ' ')
    .trim();
  return plain.length > TEXT_MAX ? `${cutText(plain, TEXT_MAX - 1)}…` : plain;
}

type Flag = Command.Flag.Cached;

/** A flag as completion may show it, or `undefined` when its name is not a plain word. */
function safeFlag(flag: Flag, key: string): Flag | undefined {
  if (!COMPLETION_WORD.test(key) || !COMPLETION_WORD.test(flag.name)) return undefined;
  const copy: Record<string, unknown> = { ...flag, summary: completionText(flag.summary ?? flag.description), description: completionText(flag.description ?? flag.summary) };
  if (flag.char !== undefined && !/^[A-Za-z0-9]$/.test(flag.char)) delete copy.char;
  const options = (flag as { options?: readonly string[] }).options;
  if (options) copy.options = options.filter((o) => COMPLETION_WORD.test(o));
  return copy as unknown as Flag;
}

/** A command as completion may show it, or `undefined` when its id is not a plain word. */
export function completionSafeCommand(command: Command.Loadable): Command.Loadable | undefined {
  if (!COMPLETION_WORD.test(command.id)) return undefined;
  const flags: Record<string, Flag> = {};
  for (const [key, flag] of Object.entries(command.flags ?? {})) {
    const safe = safeFlag(flag, key);
    if (safe) flags[key] = safe;
  }
  return {
    ...command,
    summary: completionText(command.summary ?? command.description),
    description: completionText(command.description ?? command.summary),
    aliases: (command.aliases ?? []).filter((a) => COMPLETION_WORD.test(a)),
    flags,
  } as Command.Loadable;
}

/**
 * Makes what oclif's completion generators read safe to write into shell scripts: each plugin's
 * `commands` list becomes its {@link completionSafeCommand} copies, and the topics whose names
 * are not plain words are dropped, the others' descriptions made {@link completionText}. Meant for
 * the process that runs `autocomplete` (the `prerun` hook calls it only then): the plugins'
 * own lists change, not oclif's command table.
 */
export function makeCompletionSafe(config: Interfaces.Config): void {
  for (const plugin of config.getPluginsList()) {
    plugin.commands = plugin.commands.flatMap((c) => completionSafeCommand(c) ?? []);
  }
  const topics = (config as unknown as { _topics?: Map<string, Interfaces.Topic> })._topics;
  if (topics instanceof Map) {
    for (const [name, topic] of [...topics]) {
      if (!COMPLETION_WORD.test(name)) topics.delete(name);
      else if (topic.description !== undefined) topics.set(name, { ...topic, description: completionText(topic.description) });
    }
  }
}
