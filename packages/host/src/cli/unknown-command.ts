import { toConfiguredId, type Errors, type Interfaces } from '@oclif/core';
import { reportError } from './report-error.js';
import { ERROR_CODES } from '../errors/index.js';
import { closestName } from '../util/closest-name.js';
import { pluginInstallCommand } from '../plugins/install-hint.js';
import { displayPath } from '../envelope/path-text.js';
import { asksForJson } from './json-flag.js';

/** Commands (and topics) first-party plugins add, and the plugin that adds each. */
const PLUGIN_COMMANDS: Readonly<Record<string, string>> = { pcodx: '@cordon/codex', wrap: '@cordon/aider' };

/**
 * What users of other CLIs type for a cordon command of another name (oclif names its shell
 * completion `autocomplete`; git, npm and kubectl say `completion`), and what cordon calls it:
 * a command id, or a flag (starting `--`). No spelling is close enough for the closest-name
 * suggestion, so these are looked up instead.
 */
const SYNONYMS: Readonly<Record<string, string>> = { completion: 'autocomplete', completions: 'autocomplete', version: '--version' };

/**
 * The cordon spelling of `id` when it is a well-known synonym ({@link SYNONYMS}) whose target
 * this cordon has (a command among `config`'s, or a flag), else undefined.
 */
export function commandSynonym(id: string, config: Interfaces.Config): string | undefined {
  const target = SYNONYMS[id];
  if (target === undefined) return undefined;
  return target.startsWith('--') || config.findCommand(target) ? target : undefined;
}

/**
 * Refuses a command id nobody provides (`id` in oclif's colon form, e.g. `chek` or
 * `pcodx:show`; oclif joins every word before the first flag into it, so `cordon chek foo`
 * arrives as `chek:foo`): prints the refusal (report-error.ts; `--json` in `argv` gives the JSON
 * document) and returns the error to throw, which ends the process with exit 2. `CORDON_BAD_INPUT`.
 * The message names the plugin that adds a first-party command when that plugin is not installed
 * (none of its commands is among `config`'s); else, when the first word is no
 * command or topic, that word alone (the words after it are the command's arguments) with the
 * command a well-known synonym stands for (`completion`: "Did you mean `cordon autocomplete`?"; a
 * flag's keeps `--json`: `version --json` → "Did you mean `cordon --version --json`?") or the
 * closest visible command, topic or alias (`arn lbl --allow x`: "`arn` is not a cordon command.
 * Did you mean `cordon arm`?"), continued by the following words that name its subcommands
 * (`contrl rn` → `cordon control run`); else the closest subcommand of the command or topic typed
 * before the typo (`plugins instal codex`: "Did you mean `cordon plugins install`?"). The help it
 * points at is that topic's (`cordon plugins --help`) for a subcommand's typo, else `cordon help`.
 * Used by the `command_not_found` hook (`cordon chek`) and by the help class (`cordon chek -h`,
 * `cordon help chek`), so a typo reads the same everywhere.
 */
export function reportUnknownCommand(id: string, config: Interfaces.Config, argv: readonly string[]): Errors.ExitError {
  if (id.startsWith('-')) return reportLeadingFlag(id, config, argv);
  const visible = config.commands.filter((c) => !c.hidden);
  const ids = [...visible.map((c) => c.id), ...visible.flatMap((c) => c.aliases)];
  const parts = id.split(':');
  // The plugin is named only when it is missing: with it installed, `pcodx ids extra` (oclif's
  // `pcodx:ids:extra`) is a command given words it does not take, as below.
  const provider = ids.some((c) => isWithin(c, parts[0]!)) ? undefined : PLUGIN_COMMANDS[parts[0]!];
  const refuse = (message: string): Errors.ExitError => reportError({ code: ERROR_CODES.BAD_INPUT, message }, 2, asksForJson(argv));
  const shown = (words: string): string => displayPath(toConfiguredId(words, config));
  if (provider) {
    return refuse(`\`${shown(id)}\` is not a ${config.bin} command. It comes with the ${provider} plugin: \`${pluginInstallCommand([provider.replace('@cordon/', '')], config.bin)}\`.`);
  }
  // A first word that is no command or topic is the typo; the words after it are its arguments.
  if (!ids.some((c) => isWithin(c, parts[0]!))) {
    const { typed, meant } = firstWordTypo(parts, ids, config);
    // A flag's synonym keeps --json (`cordon version --json` → `cordon --version --json`).
    const spelled = meant === undefined ? undefined : meant.startsWith('--') ? (asksForJson(argv) ? `${meant} --json` : meant) : toConfiguredId(meant, config);
    const hint = spelled === undefined ? '' : ` Did you mean \`${config.bin} ${spelled}\`?`;
    return refuse(`\`${shown(typed)}\` is not a ${config.bin} command.${hint} Run \`${config.bin} help\` for the list.`);
  }
  const typo = subcommandTypo(id, ids);
  if (typo) {
    return refuse(`\`${shown(typo.typed)}\` is not a ${config.bin} command. Did you mean \`${config.bin} ${toConfiguredId(typo.meant, config)}\`? Run \`${config.bin} ${shown(typo.parent)} --help\` for the list.`);
  }
  const owner = argumentsOf(id, nearestCommand(id, ids), config);
  if (owner) {
    return refuse(`\`${config.bin} ${shown(owner.command)}\` takes no argument \`${displayPath(owner.extra)}\`. Run \`${config.bin} ${shown(owner.command)} --help\` for what it takes.`);
  }
  // Words under a topic close to none of its subcommands: that topic's help lists them.
  const topic = deepestTopic(parts, ids);
  return refuse(`\`${shown(id)}\` is not a ${config.bin} command. Run \`${config.bin} ${topic === undefined ? 'help' : `${shown(topic)} --help`}\` for the list.`);
}

/** Whether command id `c` is `prefix` or one of its subcommands (`control:run` is within `control`). */
function isWithin(c: string, prefix: string): boolean {
  return c === prefix || c.startsWith(`${prefix}:`);
}

/** The longest run of `parts`' first words, shorter than all of them, that is a command or topic among `ids`. */
function deepestTopic(parts: readonly string[], ids: readonly string[]): string | undefined {
  for (let n = parts.length - 1; n >= 1; n--) {
    const prefix = parts.slice(0, n).join(':');
    if (ids.some((c) => isWithin(c, prefix))) return prefix;
  }
  return undefined;
}

/**
 * The words of a mistyped command whose first word (`parts[0]`) is no command or topic: `typed`,
 * that word and the following ones that name the subcommands of the one meant (`contrl:rn` with
 * `control:run` meant), and `meant`, a well-known synonym's target ({@link commandSynonym}: a
 * command id or a flag) or the closest top-level name of `ids` by {@link closestName}, continued
 * by the closest subcommand of each following word while one is close; undefined when no name is
 * close. The words after `typed` are arguments and no part of the name.
 */
function firstWordTypo(parts: readonly string[], ids: readonly string[], config: Interfaces.Config): { typed: string; meant?: string } {
  const synonym = commandSynonym(parts.join(':'), config) ?? commandSynonym(parts[0]!, config);
  if (synonym !== undefined) return { typed: commandSynonym(parts.join(':'), config) === undefined ? parts[0]! : parts.join(':'), meant: synonym };
  let meant = closestName(parts[0]!, new Set(ids.map((c) => c.split(':')[0]!)));
  if (meant === undefined) return { typed: parts[0]! };
  let n = 1;
  for (; n < parts.length; n++) {
    const children = ids.filter((c) => c.startsWith(`${meant}:`) && c.split(':').length === n + 1).map((c) => c.slice(meant!.length + 1));
    const child = children.includes(parts[n]!) ? parts[n] : closestName(parts[n]!, children);
    if (child === undefined) break;
    meant = `${meant}:${child}`;
  }
  return { typed: parts.slice(0, n).join(':'), meant };
}

/**
 * What a mistyped `id` is taken for: when it starts with a visible command or alias, whole
 * words, the deepest such (`plugins` for `plugins:instal:codex`, `pcodx` for
 * `pcodx:compact-mnay`), whose following words are then a subcommand's typo or arguments it does
 * not take ({@link subcommandTypo}, {@link argumentsOf}: each word is matched on its own, so
 * `plugins:codex` is not taken for `plugins:add`, which is near only by the words they share);
 * else the nearest visible id or alias by {@link closestName}.
 */
function nearestCommand(id: string, ids: readonly string[]): string | undefined {
  let start: string | undefined;
  for (const c of ids) if (id.startsWith(`${c}:`) && (start === undefined || c.length > start.length)) start = c;
  return start ?? closestName(id, ids);
}

/**
 * The flags cordon takes before a command's name: `--repo DIR` (bin/run.cjs moves it behind the
 * command, `cordon --repo ../app check`, docs/envelopes.md), `--help` and `--version`.
 */
const LEADING_FLAGS = ['repo', 'help', 'version'] as const;

/**
 * Refuses a flag given before any command (`cordon --verbose check`, `cordon -x`, `cordon --rep
 * ../app status`), which oclif takes for a command id: before a command, cordon takes only
 * {@link LEADING_FLAGS}, and a command's flags follow its name. A close misspelling of one of
 * those is named with the command line it meant (`Did you mean \`cordon --repo ../app status\`?`);
 * else the command with the flags moved after it when the words that follow hold one (`cordon
 * check --verbose`). `-V` and `-H` are pointed at `-v` and `-h`. `--repo` with no command after it
 * is shown its shape. `CORDON_BAD_INPUT`, exit 2.
 */
function reportLeadingFlag(flag: string, config: Interfaces.Config, argv: readonly string[]): Errors.ExitError {
  const words = [flag, ...argv];
  const [name, value] = flag.startsWith('--') ? [flag.slice(2).split('=')[0]!, flag.includes('=') ? flag.slice(flag.indexOf('=')) : ''] : ['', ''];
  const meant = name === '' ? undefined : closestName(name, LEADING_FLAGS);
  // `-V` or `-H`: the short forms cordon takes are lower case (`-v`, `-h`).
  const shortMeant = /^-[VH]$/.test(flag) ? flag.toLowerCase() : undefined;
  // The command's words: the longest run of words, from the first that is no flag, naming one (`control run`).
  const at = words.findIndex((word) => !word.startsWith('-'));
  let length = 0;
  for (let end = at < 0 ? 0 : words.length; end > at && length === 0; end--) {
    const run = words.slice(at, end);
    if (run.every((word) => !word.startsWith('-')) && config.findCommand(run.join(':')) !== undefined) length = run.length;
  }
  const where =
    shortMeant !== undefined
      ? `Did you mean \`${config.bin} ${[shortMeant, ...argv].map(displayPath).join(' ')}\`?`
      : meant === name
      ? // `cordon --repo` or `cordon --repo DIR` with no command after it.
        `It takes a directory and a command after it: \`${config.bin} --${name} DIR <command>\`.`
      : meant !== undefined
      ? `Did you mean \`${config.bin} ${[`--${meant}${value}`, ...argv].map(displayPath).join(' ')}\`?`
      : length > 0
        ? `Did you mean \`${config.bin} ${[...words.slice(at, at + length), ...words.slice(0, at), ...words.slice(at + length)].map(displayPath).join(' ')}\`?`
        : `A command's flags go after its name: \`${config.bin} <command> ${displayPath(flag)}\`.`;
  const message = `\`${displayPath(flag)}\` is a flag, not a ${config.bin} command: before a command, ${config.bin} takes only --repo DIR, --help (-h) and --version (-v). ${where} Run \`${config.bin} help\` for the commands.`;
  return reportError({ code: ERROR_CODES.BAD_INPUT, message }, 2, asksForJson(argv));
}

/**
 * When a word of `id` after a command or topic with subcommands is a typo of one of them
 * (`plugins:instal:codex` from `cordon plugins instal codex`, where the whole id is close to no
 * command): the words up to the typo (`plugins:instal`), the subcommand meant (`plugins:install`,
 * by {@link closestName} among the visible `ids` and aliases one level below) and their parent
 * (`plugins`). The deepest such parent wins; undefined when no word is close to a subcommand, or
 * when the word is a subcommand whole (then the words after it are arguments it does not take).
 */
function subcommandTypo(id: string, ids: readonly string[]): { typed: string; meant: string; parent: string } | undefined {
  const parts = id.split(':');
  for (let n = parts.length - 1; n >= 1; n--) {
    const parent = parts.slice(0, n).join(':');
    const children = ids.filter((c) => c.startsWith(`${parent}:`) && c.split(':').length === n + 1).map((c) => c.slice(parent.length + 1));
    // A subcommand given whole is one that takes no such words (`plugins reset extra`): no typo.
    if (children.includes(parts[n]!)) return undefined;
    const meant = children.length ? closestName(parts[n]!, children) : undefined;
    if (meant !== undefined) return { typed: parts.slice(0, n + 1).join(':'), meant: `${parent}:${meant}`, parent };
  }
  return undefined;
}

/**
 * When `id` is an existing command followed by words it does not take (`check:extra` from
 * `cordon check extra`: oclif reads extra words after a command without arguments as a longer
 * command id), that command and the words; undefined otherwise, and also when the closest-name
 * `suggestion` is a sibling command (`control:prob` is a typo of `control:probe`, not an argument).
 */
function argumentsOf(id: string, suggestion: string | undefined, config: Interfaces.Config): { command: string; extra: string } | undefined {
  const parts = id.split(':');
  for (let n = parts.length - 1; n >= 1; n--) {
    const command = parts.slice(0, n).join(':');
    if (!config.findCommand(command)) continue;
    if (suggestion?.startsWith(`${command}:`)) return undefined;
    return { command, extra: parts.slice(n).join(' ') };
  }
  return undefined;
}
