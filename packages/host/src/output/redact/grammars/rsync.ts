// rsync: the remote shell it runs (`-e`, `--rsh`) and the program the remote shell starts
// (`--rsync-path`), each a command line.
import { longValue, shortValue } from '../option-words.js';
import type { Follower } from '../types.js';

/**
 * rsync(1), https://download.samba.org/pub/rsync/rsync.1: `-e, --rsh=COMMAND` (the remote shell
 * with its arguments, "presented to rsync as a single argument") and `--rsync-path=PROGRAM` ("run
 * with the help of a shell, so it can be any program, script, or command sequence"); its other
 * short options that take a value, `-B`, `-f`, `-T`, `-M`, `-@`, may come first in a word.
 */
export const maskRsync: Follower = (read, words, i, edits, depth) => {
  for (let k = i + 1; k < words.length; k++) {
    if (words[k]!.text === '--') return;
    const shell = shortValue(words, k, 'e', ['-B', '-f', '-T', '-M', '-@']) ?? longValue(words, k, '--rsh') ?? longValue(words, k, '--rsync-path');
    if (shell) {
      read.script(shell.word, edits, depth, shell.from);
      k = shell.next - 1;
    }
  }
};
