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
 * `pcodx:show`): prints the refusal (report-error.ts; `--json` in `argv` gives the JSON document)
 * and returns the error to throw, which ends the process with exit 2. `CORDON_BAD_INPUT`; the
 * message names the plugin that adds a first-party command, else the command a well-known synonym
 * stands for (`completion`: "Did you mean `cordon autocomplete`?"; a flag's keeps `--json`:
 * `version --json` → "Did you mean `cordon --version --json`?"), else the closest visible
 * command or alias ("Did you mean `cordon check`?"), else the closest subcommand of the command or
 * topic typed before the typo (`plugins instal codex`: "Did you mean `cordon plugins install`?
 * Run `cordon plugins --help` for the list."). Used by
 * the `command_not_found` hook (`cordon chek`) and by the help class (`cordon chek -h`,
 * `cordon help chek`), so a typo reads the same everywhere.
 */
export function reportUnknownCommand(id: string, config: Interfaces.Config, argv: readonly string[]): Errors.ExitError {
  if (id.startsWith('-')) return reportLeadingFlag(id, config, argv);
  const visible = config.commands.filter((c) => !c.hidden);
  const ids = [...visible.map((c) => c.id), ...visible.flatMap((c) => c.aliases)];
  const typed = toConfiguredId(id, config);
  const provider = PLUGIN_COMMANDS[id.split(':')[0]!];
  const suggestion = provider ? undefined : (commandSynonym(id, config) ?? nearestCommand(id, ids));
  // A flag's synonym keeps --json (`cordon version --json` → `cordon --version --json`).
  const flagSuggestion = (flag: string): string => (asksForJson(argv) ? `${flag} --json` : flag);
  const hint = provider
    ? ` It comes with the ${provider} plugin: \`${pluginInstallCommand([provider.replace('@cordon/', '')], config.bin)}\`.`
    : suggestion
      ? ` Did you mean \`${config.bin} ${suggestion.startsWith('--') ? flagSuggestion(suggestion) : toConfiguredId(suggestion, config)}\`?`
      : '';
  // A suggestion that is the id's own start (`plugins` for `plugins:instal:codex`) is a command
  // given words it does not take, unless one of those words is a typo of a subcommand.
  const typo = provider || (suggestion !== undefined && !id.startsWith(`${suggestion}:`)) ? undefined : subcommandTypo(id, ids);
  if (typo) {
    const parent = displayPath(toConfiguredId(typo.parent, config));
    const message = `\`${displayPath(toConfiguredId(typo.typed, config))}\` is not a ${config.bin} command. Did you mean \`${config.bin} ${toConfiguredId(typo.meant, config)}\`? Run \`${config.bin} ${parent} --help\` for the list.`;
    return reportError({ code: ERROR_CODES.BAD_INPUT, message }, 2, asksForJson(argv));
  }
  const owner = provider ? undefined : argumentsOf(id, suggestion, config);
  const message = owner
    ? `\`${config.bin} ${displayPath(toConfiguredId(owner.command, config))}\` takes no argument \`${displayPath(owner.extra)}\`. Run \`${config.bin} ${displayPath(toConfiguredId(owner.command, config))} --help\` for what it takes.`
    : `\`${displayPath(typed)}\` is not a ${config.bin} command.${hint} Run \`${config.bin} help\` for the list.`;
  return reportError({ code: ERROR_CODES.BAD_INPUT, message }, 2, asksForJson(argv));
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
 * Refuses a flag given before any command (`cordon --verbose check`, `cordon -x`), which oclif
 * takes for a command id: cordon itself takes only `--help` and `--version`, and a command's
 * flags follow its name. Names the command with the flags moved after it when the words that
 * follow hold one (`cordon check --verbose`). `CORDON_BAD_INPUT`, exit 2.
 */
function reportLeadingFlag(flag: string, config: Interfaces.Config, argv: readonly string[]): Errors.ExitError {
  const words = [flag, ...argv];
  // The command's words: the longest run of words, from the first that is no flag, naming one (`control run`).
  const at = words.findIndex((word) => !word.startsWith('-'));
  let length = 0;
  for (let end = at < 0 ? 0 : words.length; end > at && length === 0; end--) {
    const run = words.slice(at, end);
    if (run.every((word) => !word.startsWith('-')) && config.findCommand(run.join(':')) !== undefined) length = run.length;
  }
  const where =
    length > 0
      ? `Did you mean \`${config.bin} ${[...words.slice(at, at + length), ...words.slice(0, at), ...words.slice(at + length)].map(displayPath).join(' ')}\`?`
      : `A command's flags go after its name: \`${config.bin} <command> ${displayPath(flag)}\`.`;
  const message = `\`${displayPath(flag)}\` is a flag, not a ${config.bin} command: ${config.bin} itself takes only --help and --version. ${where} Run \`${config.bin} help\` for the commands.`;
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
