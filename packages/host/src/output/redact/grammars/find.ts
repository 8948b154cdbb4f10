// GNU find(1): the commands of its `-exec`, `-execdir`, `-ok` and `-okdir` actions, found by
// walking its expression primary by primary.
import type { Follower } from '../types.js';

/**
 * GNU findutils find(1), https://man7.org/linux/man-pages/man1/find.1.html: the actions
 * `-exec command ;`, `-exec command {} +`, `-execdir` (the same), `-ok command ;` and `-okdir`
 * run `command` with its words as they are, up to the `;` (or a `+` right after `{}`). The
 * expression is walked primary by primary, so the argument of a test (`-name -exec`) is not
 * read as one: the primaries that take an argument are listed below (`-fprintf` two).
 */
export const maskFind: Follower = (read, words, i, edits, depth) => {
  const runs = ['-exec', '-execdir', '-ok', '-okdir'];
  const valued = ['-D', '-O', '-amin', '-anewer', '-atime', '-cmin', '-cnewer', '-context', '-ctime', '-files0-from', '-fls', '-fprint', '-fprint0', '-fstype', '-gid', '-group', '-ilname', '-iname', '-inum', '-ipath', '-iregex', '-iwholename', '-links', '-lname', '-maxdepth', '-mindepth', '-mmin', '-mtime', '-name', '-newer', '-path', '-perm', '-printf', '-regex', '-regextype', '-samefile', '-size', '-type', '-uid', '-used', '-user', '-wholename', '-xtype'];
  let j = i + 1;
  while (j < words.length) {
    const text = words[j]!.text;
    if (runs.includes(text)) {
      const plus = text.startsWith('-exec');
      let end = j + 1;
      while (end < words.length && words[end]!.text !== ';' && !(plus && words[end]!.text === '+' && words[end - 1]!.text === '{}')) end++;
      read.command(words.slice(j + 1, end), 0, edits, depth);
      j = end + 1;
    } else if (text === '-fprintf') j += 3;
    // `-newerXY reference` (X and Y each one of a B c m t).
    else j += valued.includes(text) || (text.length === 8 && text.startsWith('-newer')) ? 2 : 1;
  }
};
