/**
 * oclif's parse errors in cordon's words. oclif words each kind its own way, over several lines
 * (`Parsing --max-files \n\tExpected an integer but received: abc\nSee more help with --help`,
 * `The following error occurred:\n  Missing required flag agent`), some of them dimmed with
 * colour codes; cordon prints every error as one line (output/error-text.ts), so each kind is
 * turned into `--flag: what is wrong` where a flag is named, and every message ends with where
 * the help is.
 */

import { existsSync } from 'node:fs';
import { unknownFlagSuggestions } from './flag-suggestion.js';

/** A command's arguments as oclif describes them (`Command.args`): the allowed values of each. */
export type ArgSpecs = Readonly<Record<string, { readonly name?: string; readonly options?: readonly string[] } | undefined>>;

/** A command's flags as oclif describes them (`Command.flags`, with `json` when it takes `--json`), as far as messages need them. */
export type FlagSpecs = Readonly<Record<string, { readonly description?: string; readonly multiple?: boolean } | undefined>>;

/**
 * The colour oclif's parser adds to its own words (`colorize('dim', …)` around a failed
 * validation's reasons and a missing argument's description, @oclif/core 4 lib/parser/errors.js
 * and help.js; only on a terminal that supports colour): ansis' SGR 2 and its reset, SGR 22.
 */
const OCLIF_DIM = /\x1b\[2m|\x1b\[22m/g;

/** The parse errors whose text oclif colours ({@link OCLIF_DIM}); no other message is touched. */
const COLOURED = /^(?:The following errors? occurred:|Missing \d+ required args?)/;

/** oclif's last line on every parse error; cordon names the command's help instead. */
const SEE_HELP = /\n?See more help with --help\s*$/;

/**
 * The one-line message of one of oclif's usage errors (`error`, thrown while `command`, such as
 * `cordon arm`, parsed its argv). A missing argument is named with its description (oclif's own
 * text adds that flags taking several values must come after the arguments, which is wrong for
 * cordon's: `multipleNonGreedy`, so `cordon arm --allow 'src/**' LABEL` works). A flag's value
 * refused by its type or options reads `--max-files: expected an integer but received: "abc"` (the
 * value JSON-quoted, so that an empty one or a blank in it shows; a `--format` that is a flag of
 * its own on the command names it: `--format: … but received: "json" (did you mean --json?)`); a
 * missing required flag `missing required flag --agent`; `--json` on a command without it
 * `` `cordon help` has no --json: it prints text only``; an argument's value outside its
 * options `SHELL: expected one of zsh, bash but received: "fish"` (named when `args`, the command's
 * argument specs, has one with exactly those options); an unknown flag the flag it most likely
 * meant, `nonexistent flag: --sesion (did you mean --session?)` (flag-suggestion.ts); other
 * two exclusive flags given together `--all and --session cannot be used together: --all: reduce
 * every recorded session; --session: reduce this session`; other
 * parse errors keep oclif's words, on one line. `flags`, the command's flag specs, stand in where
 * oclif's error does not carry them. Each ends with `; see \`<command> --help\``. A
 * message that is no parse error (a command's own `this.error(…)`) is returned as it is.
 */
export function usageMessage(error: Error & { args?: unknown; flags?: unknown; parse?: unknown }, command: string, args?: ArgSpecs, flags?: FlagSpecs): string {
  // Only oclif's own colour goes: any other control sequence is the user's text (a path, a value),
  // which the error printer escapes (output/error-text.ts), never deletes.
  const plain = COLOURED.test(error.message) ? error.message.replace(OCLIF_DIM, '') : error.message;
  const text = plain.replace(SEE_HELP, '');
  // oclif gives some parse errors the command's flags (`parse.input.flags`), not all (an option refused).
  const flagSpecs = (error.parse as { input?: { flags?: FlagSpecs } } | undefined)?.input?.flags ?? flags;
  const problem = usageProblem(text, error.args, args, command, flagSpecs) ?? unknownFlagsProblem(text, error) ?? unexpectedArgsProblem(text, error, command, args, flagSpecs);
  const end = `see \`${command} --help\``;
  // A command's own `this.error(…)` is no parse error: its words stand as they are.
  if (problem === undefined) return plain === text ? text : `${oneLine(text)}; ${end}`;
  return `${problem}; ${end}`;
}

/**
 * An argument's description (a sentence for the help: `What the change is for.`) as a clause
 * after its name in a sentence (`missing LABEL, what the change is for`): the first letter lower
 * case unless the word is an abbreviation (`URL …`), no final full stop.
 */
function asClause(description: string): string {
  const text = description.trim().replace(/\.$/, '');
  return /^[A-Z][a-z]/.test(text) ? `${text[0]!.toLowerCase()}${text.slice(1)}` : text;
}

/** {@link usageMessage} of a parse error oclif words in a known way, without the pointer to the help; else undefined. */
function usageProblem(text: string, args: unknown, specs: ArgSpecs | undefined, command: string, flagSpecs?: FlagSpecs): string | undefined {
  const missing = Array.isArray(args) ? (args as Array<{ name?: unknown; description?: unknown }>).filter((a) => typeof a.name === 'string') : [];
  if (missing.length > 0 && /^Missing \d+ required arg/.test(text)) {
    return `missing ${missing.map((a) => `${String(a.name).toUpperCase()}${typeof a.description === 'string' ? `, ${asClause(a.description)}` : ''}`).join('; ')}`;
  }
  // A flag type's parse (`Flags.integer`): oclif wraps the type's own message.
  const parsing = /^Parsing --(\S+)\s*\n([\s\S]*)$/.exec(text);
  // A flag's own check that already names the flag (`--repo "/x": no such directory`) stands as it is.
  if (parsing) return parsing[2]!.trim().startsWith(`--${parsing[1]} `) ? oneLine(parsing[2]!) : `--${parsing[1]}: ${oneLine(parsing[2]!)}`;
  const option = /^Expected --([^=\s]+)=([\s\S]*) to be one of: ([\s\S]*)$/.exec(text);
  if (option) {
    // An output format that is a flag of its own on the command (`--format json`, where `--json` prints JSON).
    const flagOfValue = option[1] === 'format' && /^[a-z][a-z0-9-]*$/.test(option[2]!) && flagSpecs?.[option[2]!] !== undefined ? ` (did you mean --${option[2]}?)` : '';
    return `--${option[1]}: expected one of ${option[3]!.trim()} but received: ${JSON.stringify(option[2])}${flagOfValue}`;
  }
  // `cordon help --json`, `cordon plugins update --json`: oclif's commands that print text only.
  if (/^Nonexistent flag: --json$/.test(text.trim())) return `\`${command}\` has no --json: it prints text only`;
  // An argument's (oclif does not name it; its options do).
  const argOption = /^Expected ([\s\S]*) to be one of: ([\s\S]*)$/.exec(text);
  if (argOption) {
    const allowed = argOption[2]!.trim();
    const name = Object.entries(specs ?? {}).find(([, spec]) => spec?.options?.join(', ') === allowed)?.[0];
    return `${name === undefined ? '' : `${name.toUpperCase()}: `}expected one of ${allowed} but received: ${JSON.stringify(argOption[1])}`;
  }
  const flag = /^Flag --(\S+) ([\s\S]*)$/.exec(text);
  if (flag) return `--${flag[1]}: ${oneLine(flag[2]!)}`;
  // Failed validations (a required flag, dependsOn, exclusive): one reason a line under a heading.
  const failed = /^The following errors? occurred:\n([\s\S]*)$/.exec(text);
  if (failed) {
    const lines = failed[1]!
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    return exclusivePairs(lines, flagSpecs)
      .map((line) => lowerFirst(line.replace(/^Missing required flag (\S+)$/, (_, name: string) => `Missing required flag --${name.replace(/^--/, '')}`)))
      .join('; ');
  }
  return undefined;
}

/** oclif's reason for two exclusive flags given together: `--all=true cannot also be provided when using --session`. */
const EXCLUSIVE = /^--([^=\s]+)(?:=[\s\S]*)? cannot also be provided when using --(\S+)$/;

/**
 * `lines` (oclif's failed validations) with each pair of exclusive flags given together said once:
 * oclif names the pair twice, each time with the value typed (`--all=true cannot also be provided
 * when using --session; --session=s1 cannot also be provided when using --all`). It reads `--all
 * and --session cannot be used together: --all: reduce every recorded session; --session: reduce
 * this session`, each flag with the first clause of its description (`flags`, the command's flag
 * specs; left out when it has none). Other lines pass as they are.
 */
function exclusivePairs(lines: readonly string[], flags: FlagSpecs | undefined): string[] {
  const said = new Set<string>();
  const out: string[] = [];
  for (const line of lines) {
    const pair = EXCLUSIVE.exec(line);
    if (!pair) {
      out.push(line);
      continue;
    }
    const names = [pair[1]!, pair[2]!];
    const key = [...names].sort().join('\0');
    if (said.has(key)) continue;
    said.add(key);
    const what = names.map((name) => [name, flagGist(flags?.[name]?.description)] as const).filter(([, gist]) => gist !== undefined);
    const why = what.length === names.length ? `: ${what.map(([name, gist]) => `--${name}: ${gist}`).join('; ')}` : '';
    out.push(`--${names[0]} and --${names[1]} cannot be used together${why}`);
  }
  return out;
}

/** A flag description's first clause (up to `;`, `(` or `.`), starting lower-case; undefined for none. */
function flagGist(description: string | undefined): string | undefined {
  const gist = description?.split(/[;(.]/)[0]?.trim();
  return gist === undefined || gist === '' ? undefined : lowerFirst(gist);
}

/**
 * oclif's `Nonexistent flags: --sesion, -x` (`text`, from `error`, its NonExistentFlagsError) with
 * the flag each mistyped one most likely meant: `nonexistent flags: --sesion (did you mean
 * --session?), -x`; undefined for any other error, and when no flag has a guess (oclif's words
 * then stand).
 */
function unknownFlagsProblem(text: string, error: { flags?: unknown }): string | undefined {
  if (!/^Nonexistent flags?: /.test(text.trim()) || !Array.isArray(error.flags)) return undefined;
  const suggestions = unknownFlagSuggestions(error);
  if (Object.keys(suggestions).length === 0) return undefined;
  const flags = (error.flags as unknown[]).map(String);
  return `nonexistent flag${flags.length === 1 ? '' : 's'}: ${flags.map((f) => (Object.hasOwn(suggestions, f) ? `${f} (did you mean ${suggestions[f]}?)` : f)).join(', ')}`;
}

/**
 * oclif's `Unexpected arguments: a, b` with what usually causes it. A flag of several values
 * takes one per occurrence (`multipleNonGreedy`), so a glob the shell expanded
 * (`--allow src/**` → `--allow src/a.py src/b.py`) leaves every path but the first over: the hint
 * names that flag and quotes the glob when the first extra word comes right after a flag's value,
 * or when the flag (one of `flags`, the command's flag specs, taking several values) is followed
 * by its value, the words oclif took for the arguments and the first extra word, all paths that
 * exist from the current directory, where the shell expanded them (`cordon arm --allow src/**
 * fix` → `--allow src/a.py src/b.py src/c.py fix`, `src/b.py` taken for the LABEL). Otherwise, on
 * a command that takes an argument, words meant as one (`cordon arm fix the parser`) need quotes.
 * Undefined for any other error.
 */
function unexpectedArgsProblem(text: string, error: { args?: unknown; parse?: unknown }, command: string, specs: ArgSpecs | undefined, flags?: FlagSpecs): string | undefined {
  if (!/^Unexpected arguments?: /.test(text.trim()) || !Array.isArray(error.args)) return undefined;
  const extra = (error.args as unknown[]).map(String);
  const listed = `unexpected argument${extra.length === 1 ? '' : 's'}: ${extra.join(', ')}`;
  const argv = (error.parse as { input?: { argv?: unknown } } | undefined)?.input?.argv;
  const words = Array.isArray(argv) ? argv.map(String) : [];
  const at = words.indexOf(extra[0]!);
  const flag = at >= 2 ? /^(--[a-z][a-z0-9-]*)$/.exec(words[at - 2]!)?.[1] : undefined;
  if (flag !== undefined && !words[at - 1]!.startsWith('-')) return `${listed} (a glob the shell expanded? quote it, e.g. ${flag} 'src/**')`;
  const expanded = expandedGlobFlag(words, at, flags);
  if (expanded !== undefined) return `${listed} (a glob the shell expanded? quote it, e.g. ${expanded} 'src/**')`;
  const names = Object.keys(specs ?? {});
  if (names.length > 0) return `${listed} (words meant as one ${names[0]!.toUpperCase()} need quotes: ${command} "${extra.length > 0 ? [words[at - 1] ?? '', ...extra].filter((w) => w !== '' && !w.startsWith('-')).join(' ') : '…'}")`;
  return listed;
}

/**
 * The flag (`--allow`) whose value the shell expanded into `words[i+1..at]` when the arguments
 * oclif took lie between its value and the first extra word (`words[at]`): the nearest flag
 * before `at` with only plain words after it, one of several values in `flags`, its value and
 * every word up to and with `words[at]` a path that exists (relative to the current directory,
 * where the shell expanded the glob). Undefined otherwise.
 */
function expandedGlobFlag(words: readonly string[], at: number, flags: FlagSpecs | undefined): string | undefined {
  if (at < 3) return undefined;
  let i = at - 1;
  while (i >= 0 && !words[i]!.startsWith('-')) i--;
  const name = i < 0 ? undefined : /^--([a-z][a-z0-9-]*)$/.exec(words[i]!)?.[1];
  if (name === undefined || flags?.[name]?.multiple !== true || at - i < 3) return undefined;
  return words.slice(i + 1, at + 1).every((word) => existsSync(word)) ? `--${name}` : undefined;
}

/** `text`'s lines, trimmed, joined with `; `, starting lower-case as cordon's messages do. */
function oneLine(text: string): string {
  return lowerFirst(
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .join('; '),
  );
}

/** `Expected …` → `expected …`; a flag (`--x`) or a name in capitals (`LABEL`) stays as it is. */
function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? `${text[0]!.toLowerCase()}${text.slice(1)}` : text;
}
