// Environment variables whose value is a command line (`GIT_SSH_COMMAND=…`, in front of a
// command, after `env` or `export`), and env(1)'s own grammar, `-S`'s split string included.
import { isAssignment, longValue, shortValue, takesNext } from '../option-words.js';
import { innerWords, MAX_DEPTH } from '../shell-words.js';
import type { CommandReader, Edit, Follower, Word } from '../types.js';
import { wrapperRules } from '../wrappers.js';

/**
 * Environment variables whose value is a command line that a program runs: git(1)'s
 * GIT_SSH_COMMAND ("interpreted by the shell, which allows additional arguments to be
 * included"), GIT_PROXY_COMMAND, GIT_EDITOR, GIT_SEQUENCE_EDITOR and GIT_PAGER
 * (https://git-scm.com/docs/git#_environment_variables), and rsync(1)'s RSYNC_RSH (the remote
 * shell with its options, as `-e`).
 */
const COMMAND_VARIABLES = ['GIT_SSH_COMMAND', 'GIT_PROXY_COMMAND', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'GIT_PAGER', 'RSYNC_RSH'];

/** The edits in `NAME=value` (`word`) when NAME is one of {@link COMMAND_VARIABLES}: the value read as a command line. */
export function maskAssignment(read: CommandReader, word: Word, edits: Edit[], depth: number): void {
  const equals = word.text.indexOf('=');
  if (COMMAND_VARIABLES.includes(word.text.slice(0, equals))) read.script(word, edits, depth, equals + 1);
}

/**
 * Index of the command env(1) (`words[i]`) runs, adding the edits in the command-holding
 * variables it sets; coreutils env(1),
 * https://www.gnu.org/software/coreutils/manual/html_node/env-invocation.html: `env [OPTION]…
 * [-] [NAME=VALUE]… [COMMAND [ARG]…]`, where `-S, --split-string=S` splits S into words that take
 * its place among env's arguments (options, assignments, the command and its first arguments:
 * `env -S'-i A=1 mysql -pX' db`; getopt_long takes `--s` for `--split-string`). Those words are read with the rest as env's own, and the
 * whole is done here (words.length returned).
 */
export function envCommand(read: CommandReader, words: readonly Word[], i: number, edits: Edit[], depth: number): number {
  const valued = wrapperRules().get('env')!.valued;
  let j = i + 1;
  while (j < words.length) {
    const text = words[j]!.text;
    if (text === '--') return j + 1;
    if (isAssignment(text)) {
      maskAssignment(read, words[j]!, edits, depth);
      j++;
      continue;
    }
    if (text === '-') {
      j++;
      continue;
    }
    if (!text.startsWith('-')) return j;
    const split = shortValue(words, j, 'S', valued) ?? longValue(words, j, '--split-string', '--s');
    if (split && depth < MAX_DEPTH) {
      const spliced = [words[i]!, ...innerWords(split.word, split.from).flat(), ...words.slice(split.next)];
      read.command(spliced, 0, edits, depth + 1);
      return words.length;
    }
    j += takesNext(text, valued) ? 2 : 1;
  }
  return j;
}

/** The shell's `export NAME=value …` (and `export -p`): the edits in its command-holding variables. */
export const maskExport: Follower = (read, words, i, edits, depth) => {
  for (let j = i + 1; j < words.length; j++) if (isAssignment(words[j]!.text)) maskAssignment(read, words[j]!, edits, depth);
};
