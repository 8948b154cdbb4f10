// git: the settings given with `-c` whose value is a command line, and the commands its
// subcommands run: `rebase --exec`, `bisect run`, `submodule foreach`, `filter-branch`'s
// filters, `difftool --extcmd`.
import { longValue, shortValue, takesNext } from '../option-words.js';
import type { CommandReader, Edit, Follower, Word } from '../types.js';

/**
 * git's configuration variables whose whole value is a command line git runs
 * (https://git-scm.com/docs/git-config): core.sshCommand ("in the same form as the
 * GIT_SSH_COMMAND environment variable"), core.gitProxy, core.editor, sequence.editor, core.pager
 * ("meant to be interpreted by the shell"), diff.external; and per driver diff.<driver>.command,
 * merge.<driver>.driver, filter.<driver>.clean, .smudge and .process
 * (https://git-scm.com/docs/gitattributes). The counterparts of the GIT_* variables env.ts reads.
 */
const WHOLE_VALUE = /^(core\.(sshcommand|gitproxy|editor|pager)|sequence\.editor|diff\.external|diff\..+\.command|merge\..+\.driver|filter\..+\.(clean|smudge|process))$/;

/**
 * Settings whose value is a shell command line when it begins with `!`: alias.<name> ("If the
 * alias expansion is prefixed with an exclamation point, it will be treated as a shell command",
 * git-config) and credential.helper, also per URL ("If the helper string begins with !, it is
 * considered a shell snippet", https://git-scm.com/docs/gitcredentials).
 */
const BANG_VALUE = /^(alias\..+|credential\.(.+\.)?helper)$/;

/**
 * Where the command line in `-c` setting `name=value` starts (0, or 1 after a `!`), or undefined
 * when the setting holds none. Section and key are case-insensitive; a subsection is not, but
 * only the key around it is matched.
 */
export function commandInSetting(name: string, value: string): number | undefined {
  const key = name.toLowerCase();
  if (WHOLE_VALUE.test(key)) return 0;
  if (BANG_VALUE.test(key) && value.startsWith('!')) return 1;
  return undefined;
}

/** git's global options that take the next word as their value (git(1), https://git-scm.com/docs/git). */
const GIT_GLOBALS = ['-C', '-c', '--config-env', '--git-dir', '--work-tree', '--namespace', '--attr-source'];

/** git filter-branch's options whose value is a shell command it evals (https://git-scm.com/docs/git-filter-branch; its own parser: no abbreviations). */
const FILTERS = ['--setup', '--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter'];

/**
 * git(1), https://git-scm.com/docs/git: `git [-c <name>=<value>] … <command>`; a `-c` setting
 * {@link commandInSetting} names holds a command line. Then the subcommands that run one:
 * - `rebase -x <cmd>, --exec <cmd>` ("<cmd> will be interpreted as one or more shell commands",
 *   https://git-scm.com/docs/git-rebase; parse-options: `-x<cmd>`, `--exec=<cmd>`, `--ex <cmd>`,
 *   after boolean flags in one word, `-ix cmd`; `-s`, `-X`, `-C` and `-S[<keyid>]` take theirs);
 * - `bisect run <cmd> [<arg>…]` and `submodule foreach [--recursive] <command>`: the words
 *   joined and run by the shell (https://git-scm.com/docs/git-bisect,
 *   https://git-scm.com/docs/git-submodule);
 * - `filter-branch --tree-filter <command>` and its other {@link FILTERS};
 * - `difftool -x <command>, --extcmd=<command>` (https://git-scm.com/docs/git-difftool; `-t`
 *   takes a value).
 */
export const maskGit: Follower = (read, words, i, edits, depth) => {
  let j = i + 1;
  while (j < words.length) {
    const text = words[j]!.text;
    if (text === '--' || !text.startsWith('-')) break;
    if (text === '-c' && j + 1 < words.length) {
      const setting = words[j + 1]!;
      const equals = setting.text.indexOf('=');
      const from = equals > 0 ? commandInSetting(setting.text.slice(0, equals), setting.text.slice(equals + 1)) : undefined;
      if (from !== undefined) read.script(setting, edits, depth, equals + 1 + from);
    }
    j += takesNext(text, GIT_GLOBALS) ? 2 : 1;
  }
  if (j >= words.length) return;
  const command = words[j]!.text;
  if (command === 'rebase') eachValue(read, words, j + 1, edits, depth, (k) => shortValue(words, k, 'x', ['-s', '-X', '-C', '-S']) ?? longValue(words, k, '--exec', '--ex'));
  else if (command === 'difftool') eachValue(read, words, j + 1, edits, depth, (k) => shortValue(words, k, 'x', ['-t']) ?? longValue(words, k, '--extcmd', '--e'));
  else if (command === 'filter-branch') eachValue(read, words, j + 1, edits, depth, (k) => FILTERS.map((name) => longValue(words, k, name)).find((v) => v !== undefined));
  else if (command === 'bisect' && words[j + 1]?.text === 'run') read.joined(words, j + 2, edits, depth);
  else if (command === 'submodule') {
    let k = j + 1;
    while (k < words.length && words[k]!.text !== 'foreach') {
      if (!words[k]!.text.startsWith('-')) return; // another submodule command
      k++;
    }
    k++;
    while (k < words.length && words[k]!.text.startsWith('-')) k++; // --recursive, -q
    if (k < words.length) read.joined(words, k, edits, depth);
  }
};

/** Reads, as a command line, each option value `valueAt` finds in `words` from `k` on, up to a `--`. */
function eachValue(read: CommandReader, words: readonly Word[], k: number, edits: Edit[], depth: number, valueAt: (k: number) => ReturnType<typeof longValue>): void {
  for (; k < words.length; k++) {
    if (words[k]!.text === '--') return;
    const value = valueAt(k);
    if (value) {
      read.script(value.word, edits, depth, value.from);
      k = value.next - 1;
    }
  }
}
