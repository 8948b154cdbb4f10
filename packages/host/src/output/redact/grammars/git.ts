// git: the settings given with `-c` whose value is a command line, and the commands `git rebase
// --exec` runs after each commit.
import { longValue, shortValue, takesNext } from '../option-words.js';
import type { Follower } from '../types.js';

/**
 * git's configuration variables whose value is a command line git runs: core.sshCommand ("in the
 * same form as the GIT_SSH_COMMAND environment variable"), core.gitProxy, core.editor,
 * sequence.editor and core.pager ("meant to be interpreted by the shell"),
 * https://git-scm.com/docs/git-config: the counterparts of the GIT_* variables env.ts reads.
 * Section and key are case-insensitive.
 */
const GIT_COMMAND_CONFIG = ['core.sshcommand', 'core.gitproxy', 'core.editor', 'sequence.editor', 'core.pager'];

/** git's global options that take the next word as their value (git(1), https://git-scm.com/docs/git). */
const GIT_GLOBALS = ['-C', '-c', '--config-env', '--git-dir', '--work-tree', '--namespace', '--attr-source'];

/**
 * git(1), https://git-scm.com/docs/git: `git [-c <name>=<value>] … <command>`; a `-c` that sets
 * one of {@link GIT_COMMAND_CONFIG} holds a command line. Then `git rebase -x <cmd>, --exec <cmd>`
 * ("<cmd> will be interpreted as one or more shell commands", https://git-scm.com/docs/git-rebase;
 * parse-options: `-x<cmd>`, `--exec=<cmd>`, after boolean flags in one word, `-ix cmd`; `-s`, `-X`,
 * `-C` and `-S[<keyid>]` take theirs).
 */
export const maskGit: Follower = (read, words, i, edits, depth) => {
  let j = i + 1;
  while (j < words.length) {
    const text = words[j]!.text;
    if (text === '--' || !text.startsWith('-')) break;
    if (text === '-c' && j + 1 < words.length) {
      const setting = words[j + 1]!;
      const equals = setting.text.indexOf('=');
      if (equals > 0 && GIT_COMMAND_CONFIG.includes(setting.text.slice(0, equals).toLowerCase())) read.script(setting, edits, depth, equals + 1);
    }
    j += takesNext(text, GIT_GLOBALS) ? 2 : 1;
  }
  if (j >= words.length || words[j]!.text !== 'rebase') return;
  for (let k = j + 1; k < words.length; k++) {
    if (words[k]!.text === '--') return;
    const exec = shortValue(words, k, 'x', ['-s', '-X', '-C', '-S']) ?? longValue(words, k, '--exec');
    if (exec) {
      read.script(exec.word, edits, depth, exec.from);
      k = exec.next - 1;
    }
  }
};
