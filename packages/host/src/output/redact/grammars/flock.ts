// util-linux flock(1): the command it runs while it holds the lock, as words or as `-c`'s
// command line.
import { longValue, skipOptions } from '../option-words.js';
import type { Follower } from '../types.js';

/**
 * util-linux flock(1), https://man7.org/linux/man-pages/man1/flock.1.html: `flock [options]
 * file|directory command [arguments]` (run as they are) or `flock [options] file|directory -c
 * command` (one command line, run by the shell); `-w, --timeout, --wait` and `-E,
 * --conflict-exit-code` take a value; `--command` also as `--command=…` and abbreviated to `--com`
 * (getopt_long).
 */
export const maskFlock: Follower = (read, words, i, edits, depth) => {
  let j = skipOptions(words, i + 1, ['-w', '-E', '--wait', '--timeout', '--conflict-exit-code']);
  if (j < words.length && words[j]!.text === '--') j++;
  const command = j + 1; // after the file or directory
  if (command >= words.length) return;
  const script = words[command]!.text === '-c' ? (command + 1 < words.length ? { word: words[command + 1]!, from: 0 } : undefined) : longValue(words, command, '--command', '--com');
  if (script) read.script(script.word, edits, depth, script.from);
  else read.command(words, command, edits, depth);
};
