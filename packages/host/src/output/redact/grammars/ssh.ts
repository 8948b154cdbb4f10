// OpenSSH's clients: ssh's remote command (the words after the destination, run by the remote
// shell), and the command lines ssh, scp and sftp take in `-o ProxyCommand=…` and its kin.
import { shortValue, takesNext } from '../option-words.js';
import type { CommandReader, Edit, Follower, Word } from '../types.js';

/**
 * ssh(1)'s options that take a value, https://man.openbsd.org/ssh.1 (`-B -b -c -D -E -e -F -I
 * -i -J -L -l -m -O -o -P -p -Q -R -S -W -w`); the others are flags.
 */
const SSH_VALUED = ['-B', '-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-P', '-p', '-Q', '-R', '-S', '-W', '-w'];

/** scp(1)'s options that take a value, https://man.openbsd.org/scp.1. */
const SCP_VALUED = ['-c', '-D', '-F', '-i', '-J', '-l', '-o', '-P', '-S', '-X'];

/** sftp(1)'s, https://man.openbsd.org/sftp.1. */
const SFTP_VALUED = ['-B', '-b', '-c', '-D', '-F', '-i', '-J', '-l', '-o', '-P', '-R', '-S', '-X'];

/**
 * The edits in ssh's remote command (`ssh [options] destination command …`, ssh(1): the words
 * after the destination, joined with spaces, are run by the remote user's shell), and in the
 * commands its `-o` options hold (`-o ProxyCommand=…`, see {@link maskConfigCommand}). OpenSSH
 * reads options after the destination too (`ssh host -p 22 cmd`).
 */
export const maskRemoteCommand: Follower = (read, words, i, edits, depth) => {
  let destination = sshOptions(read, words, i + 1, SSH_VALUED, edits, depth);
  if (destination < words.length && words[destination]!.text === '--') destination++;
  if (destination >= words.length) return;
  let command = sshOptions(read, words, destination + 1, SSH_VALUED, edits, depth);
  if (command < words.length && words[command]!.text === '--') command++;
  if (command >= words.length) return;
  read.joined(words, command, edits, depth);
};

/**
 * Index of the first word from `i` on that is not an option of ssh, scp or sftp (as
 * option-words.ts `skipOptions`), adding the edits in the commands its `-o` options hold.
 */
function sshOptions(read: CommandReader, words: readonly Word[], i: number, valued: readonly string[], edits: Edit[], depth: number): number {
  while (i < words.length) {
    const text = words[i]!.text;
    if (text === '--' || !text.startsWith('-') || text === '-') return i;
    const option = shortValue(words, i, 'o', valued);
    if (option) maskConfigCommand(read, option.word, option.from, edits, depth);
    i += takesNext(text, valued) ? 2 : 1;
  }
  return i;
}

/**
 * ssh_config(5) keywords whose argument is a command line: ProxyCommand ("The command string
 * extends to the end of the line, and is executed using the user's shell 'exec' directive"),
 * RemoteCommand, LocalCommand and KnownHostsCommand, https://man.openbsd.org/ssh_config.5.
 */
const SSH_COMMAND_KEYWORDS = ['proxycommand', 'remotecommand', 'localcommand', 'knownhostscommand'];

/**
 * The edits in an `-o` option of ssh (`word`'s text from `from` on): ssh_config(5)'s `Keyword
 * arguments` or `Keyword=arguments` (keywords are case-insensitive; white space or one `=`, with
 * white space around it, separates them), read as a command line when the keyword takes one.
 */
function maskConfigCommand(read: CommandReader, word: Word, from: number, edits: Edit[], depth: number): void {
  const text = word.text;
  let at = from;
  while (at < text.length && ((text[at]! >= 'a' && text[at]! <= 'z') || (text[at]! >= 'A' && text[at]! <= 'Z'))) at++;
  if (!SSH_COMMAND_KEYWORDS.includes(text.slice(from, at).toLowerCase())) return;
  while (text[at] === ' ' || text[at] === '\t') at++;
  if (text[at] === '=') at++;
  while (text[at] === ' ' || text[at] === '\t') at++;
  read.script(word, edits, depth, at);
}

/** The edits in scp's or sftp's `-o` options, wherever among its words (their operands are files and hosts). */
function sshOptionsAll(read: CommandReader, words: readonly Word[], i: number, valued: readonly string[], edits: Edit[], depth: number): void {
  for (let j = i + 1; j < words.length; j = sshOptions(read, words, j, valued, edits, depth) + 1) if (words[j]!.text === '--') return;
}

/** scp: the commands in its `-o` options ({@link sshOptionsAll}). */
export const maskScp: Follower = (read, words, i, edits, depth) => sshOptionsAll(read, words, i, SCP_VALUED, edits, depth);

/** sftp: the commands in its `-o` options ({@link sshOptionsAll}). */
export const maskSftp: Follower = (read, words, i, edits, depth) => sshOptionsAll(read, words, i, SFTP_VALUED, edits, depth);
