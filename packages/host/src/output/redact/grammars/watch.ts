// procps watch(1): the command it runs again and again, joined into a shell command line or,
// with `-x`, run as its words are.
import { afterOptions, hasFlag, isLongFlag } from '../option-words.js';
import type { Follower } from '../types.js';

/**
 * procps watch(1), https://man7.org/linux/man-pages/man1/watch.1.html: `watch [options]
 * command`; options end at the command (`-n, --interval secs` and `-q, --equexit cycles` take a
 * value; `-d`'s is attached only). The command's words are joined with spaces and given to `sh
 * -c` ("you may need to use extra quoting"), or with `-x, --exec` (getopt_long: also `--ex`) run
 * as they are.
 */
export const maskWatch: Follower = (read, words, i, edits, depth) => {
  const valued = ['-n', '-q', '--interval', '--equexit'];
  let exec = false;
  const j = afterOptions(words, i + 1, valued, (text) => {
    if (isLongFlag(text, '--exec', '--ex') || hasFlag(text, 'x', valued)) exec = true;
  });
  if (j >= words.length) return;
  if (exec) read.command(words, j, edits, depth);
  else read.joined(words, j, edits, depth);
};
