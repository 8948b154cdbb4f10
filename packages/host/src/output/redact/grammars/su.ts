// util-linux su(1) and runuser(1): the command line of `-c` (and `-C`), and the command
// `runuser -u user` runs as its words are.
import { longValue, programName, shortValue, takesNext } from '../option-words.js';
import type { Follower } from '../types.js';

/**
 * util-linux su(1) and runuser(1), https://man7.org/linux/man-pages/man1/su.1.html: `-c,
 * --command=command` ("Pass command to the shell with the -c option") and `-C,
 * --session-command=command`; options may follow the user (`su - postgres -c '…'`); `-g`, `-G`,
 * `-s`, `-w` take a value. runuser(1), https://man7.org/linux/man-pages/man1/runuser.1.html,
 * takes the same, and with `-u user` runs a command of its own: `runuser -u user [[--] command
 * [argument...]]`. Long options may be abbreviated (getopt_long): `--c` is `--command`, `--se`
 * `--session-command`.
 */
export const maskSu: Follower = (read, words, i, edits, depth) => {
  const valued = ['-c', '-C', '-g', '-G', '-s', '-u', '-w', '--command', '--session-command', '--group', '--supp-group', '--shell', '--user', '--whitelist-environment'];
  const runuser = programName(words[i]!.text) === 'runuser';
  let user = false;
  for (let j = i + 1; j < words.length; j++) {
    const text = words[j]!.text;
    if (runuser && user && (text === '--' || !text.startsWith('-'))) {
      read.command(words, text === '--' ? j + 1 : j, edits, depth);
      return;
    }
    if (text === '--') return;
    if (!text.startsWith('-')) continue;
    if (runuser && (text === '--user' || text.startsWith('--user=') || shortValue(words, j, 'u', valued))) user = true;
    const script = shortValue(words, j, 'c', valued) ?? shortValue(words, j, 'C', valued) ?? longValue(words, j, '--command', '--c') ?? longValue(words, j, '--session-command', '--se');
    if (script) {
      read.script(script.word, edits, depth, script.from);
      j = script.next - 1;
    } else if (takesNext(text, valued)) j++;
  }
};
