// Apache htpasswd: with `-b` the password is an operand, not an option's value, so the table of
// credential options (credentials.ts) cannot say where it is.
import { maskFrom } from '../credentials.js';
import type { Follower } from '../types.js';

/**
 * Apache htpasswd(1), https://httpd.apache.org/docs/current/programs/htpasswd.html: `htpasswd -b
 * [options] passwdfile username password`, and with `-n` (print, no file) `htpasswd -nb [options]
 * username password`: with `-b` the last operand is the password. Flags may be clustered
 * (`-cbB`); `-C cost` and `-r rounds` take a value, attached or the next word (apr_getopt). The
 * password word is masked whole; a reference (`$PASS`) stays.
 */
export const maskHtpasswd: Follower = (_read, words, i, edits) => {
  let batch = false;
  let noFile = false;
  let j = i + 1;
  for (; j < words.length; j++) {
    const text = words[j]!.text;
    if (text === '--') {
      j++;
      break;
    }
    if (text.length < 2 || text[0] !== '-') break;
    for (let k = 1; k < text.length; k++) {
      const flag = text[k]!;
      if (flag === 'b') batch = true;
      else if (flag === 'n') noFile = true;
      else if (flag === 'C' || flag === 'r') {
        // The value is the rest of the word, or the next word.
        if (k === text.length - 1) j++;
        break;
      }
    }
  }
  if (!batch) return;
  const password = words[j + (noFile ? 1 : 2)];
  if (password === undefined || password.text.startsWith('$')) return;
  const edit = maskFrom(password, 0);
  if (edit) edits.push(edit);
};
