import type * as shlexModule from 'shlex';
import { lazyPackage } from '../util/lazy-package.js';

const shlex = lazyPackage<typeof shlexModule>('shlex');

/**
 * The normalised form of a shell command, the key the loop breaker compares (docs/hooks.md
 * "The loop breaker"): the command split into words as a POSIX shell would (shlex), each word
 * quoted again only where it needs it, joined by single spaces. So white space between words and
 * the choice of quoting do not matter (`sh -c 'exit 1'`, `sh  -c "exit 1"` are one command), what
 * a word holds does (`echo 'a  b'` and `echo a b` stay two). A command shlex cannot split (an
 * unclosed quote) is compared with its runs of white space collapsed and its ends trimmed.
 */
export function normaliseShellCommand(command: string): string {
  try {
    const words = shlex().split(command);
    return shlex().join(words);
  } catch {
    return command.replace(/\s+/g, ' ').trim();
  }
}
