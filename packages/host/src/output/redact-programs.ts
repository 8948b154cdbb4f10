/**
 * Credential options of particular programs, for `redact.ts`: `curl -u admin:***`,
 * `mysql -p***`, `sshpass -p ***`, `openssl enc -pass pass:***` … A single-letter flag means a
 * secret only for the program that defines it (`-u` is curl's `user:password` and docker run's
 * uid, `-p` is mysql's password and ssh's port), so each rule here is looked up by the command's
 * program name and applies to that program's arguments only.
 *
 * The table lists programs whose manual documents a password (or bearer token) given as an option
 * value and that agents and scripts commonly run with one; a program not listed keeps its
 * single-letter flags as written, because guessing from the flag alone would mask ports, uids and
 * file names. Long `--password`/`--token`-like options of any program are `redact.ts`'s own rule.
 *
 * A listed program is found where a shell would run it: after wrappers that run the rest of
 * their words (`sudo`, `env`, `timeout 5`, `nice -n 5`, `xargs -n 1` …, each wrapper's options
 * that take a value skipped), as the command of `docker exec CONTAINER`, `podman exec`,
 * `kubectl exec POD --`, `docker run IMAGE`, in `bash -c '…'` and in the remote command of `ssh
 * host '…'`, and in the commands of programs with a grammar of their own (`watch`, `su -c`,
 * `flock FILE -c`, `find -exec … ;`, `env -S`, `GIT_SSH_COMMAND=…`, `ssh -o ProxyCommand=…`, `git -c
 * core.sshCommand=…`, `git rebase --exec`, `rsync -e`:
 * {@link followers}, each citing its manual).
 *
 * This file reads each command to its program and applies what `redact/` says of it: the table
 * of credential options (`redact/credentials.ts`), the wrappers (`redact/wrappers.ts`), the
 * container launchers (`redact/containers.ts`) and the programs with a grammar of their own
 * (`redact/grammars/`: ssh, env, watch, su, flock, find, git, rsync, htpasswd), over the shell words of
 * `redact/shell-words.ts`.
 *
 * No regular expression: the text is split into shell words by a small scanner, and only when
 * one of the table's program names occurs in it at all (a wrapper alone needs no scan: the
 * command it runs names its program).
 */
import { programMay, programRules, maskProgramArguments } from './redact/credentials.js';
import { launchedAt } from './redact/containers.js';
import { envCommand, maskAssignment, maskExport } from './redact/grammars/env.js';
import { maskFind } from './redact/grammars/find.js';
import { maskFlock } from './redact/grammars/flock.js';
import { maskGit } from './redact/grammars/git.js';
import { maskHtpasswd } from './redact/grammars/htpasswd.js';
import { maskRsync } from './redact/grammars/rsync.js';
import { maskRemoteCommand, maskScp, maskSftp } from './redact/grammars/ssh.js';
import { maskSu } from './redact/grammars/su.js';
import { maskWatch } from './redact/grammars/watch.js';
import { isAssignment, programName } from './redact/option-words.js';
import { innerWords, MAX_DEPTH, OPENERS, simpleCommands } from './redact/shell-words.js';
import type { CommandReader, Edit, Follower, Word } from './redact/types.js';
import { skipWrapperOptions, wrapperRules } from './redact/wrappers.js';

export { programMay };

/** Shells whose `-c` word is itself a command line (`bash -c 'curl -u a:b x'`). */
const SHELLS = ['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash'];

/**
 * Adds the edits for one simple command (`words` from `i` on): assignments, wrappers and reserved
 * words are passed over to the program word; a listed program's credential values are masked;
 * the command a subcommand runs (`docker exec c …`) is read as a command of its own, and so are a
 * shell's `-c` command line and ssh's remote command.
 */
function maskCommand(words: readonly Word[], i: number, edits: Edit[], depth: number): void {
  while (i < words.length) {
    const text = words[i]!.text;
    if (isAssignment(text)) {
      maskAssignment(READER, words[i]!, edits, depth);
      i++;
      continue;
    }
    if (OPENERS.includes(text)) {
      i++;
      continue;
    }
    const name = programName(text);
    if (name === 'env') {
      i = envCommand(READER, words, i, edits, depth);
      continue;
    }
    const wrapper = wrapperRules().get(name);
    if (wrapper !== undefined) {
      i = skipWrapperOptions(words, i + 1, wrapper);
      continue;
    }
    const launched = launchedAt(words, i, name);
    if (launched?.entrypoint !== undefined) {
      // `--entrypoint sh` with `-c '…'` after the image: one command, the entrypoint's words first
      // (Compose and podman split a value with spaces into words).
      const { word, from } = launched.entrypoint;
      if (depth < MAX_DEPTH) maskCommand([...innerWords(word, from).flat(), ...words.slice(launched.at)], 0, edits, depth + 1);
      return;
    }
    if (launched !== undefined) {
      i = launched.at;
      continue;
    }
    const rule = programRules().get(name);
    if (rule) {
      i = maskProgramArguments(words, i, rule, edits);
      continue;
    }
    const follow = followers().get(name);
    if (follow) follow(READER, words, i, edits, depth);
    else if (SHELLS.includes(name) && depth < MAX_DEPTH) maskShellCommand(words, i, edits, depth);
    return;
  }
}

/** The edits inside `bash -c '<command line>'`: the quoted command line's own program options. */
function maskShellCommand(words: readonly Word[], i: number, edits: Edit[], depth: number): void {
  for (let j = i + 1; j < words.length - 1; j++) {
    const text = words[j]!.text;
    if (text === '--' || !(text.startsWith('-') || text.startsWith('+'))) return; // a script file runs, not a -c line
    if (text === '-o' || text === '+o') j++; // `-o pipefail`
    if (text.startsWith('--') || !text.includes('c')) continue;
    maskScript(words[j + 1]!, edits, depth);
    return;
  }
}

/**
 * Adds the edits inside `script`, a word of a command line that is itself a command line (`-c`'s
 * word, ssh's remote command, `su -c`'s, `flock -c`'s), from character `from` of its text on
 * (`--command=…`, `GIT_SSH_COMMAND=…`); nothing deeper than {@link MAX_DEPTH}.
 */
function maskScript(script: Word, edits: Edit[], depth: number, from = 0): void {
  if (depth >= MAX_DEPTH) return;
  for (const words of innerWords(script, from)) maskCommand(words, 0, edits, depth + 1);
}

/**
 * The edits for a command given as words that a shell runs joined with spaces (ssh's remote
 * command, watch's command): its words read as a command (`ssh h mysql -pX`), and each word with
 * a space in it read as a command line of its own (`ssh h 'mysql -pX db'`).
 */
function maskJoinedCommand(words: readonly Word[], command: number, edits: Edit[], depth: number): void {
  maskCommand(words, command, edits, depth);
  for (let j = command; j < words.length; j++) if (words[j]!.text.includes(' ')) maskScript(words[j]!, edits, depth);
}

/** The reader the grammars call back (`redact/types.ts` `CommandReader`). */
const READER: CommandReader = { command: maskCommand, script: maskScript, joined: maskJoinedCommand };

/** Programs that run a command of their own grammar, each with the reader of its words (`redact/grammars/`). */
let followerRules: ReadonlyMap<string, Follower> | undefined;
function followers(): ReadonlyMap<string, Follower> {
  return (followerRules ??= new Map<string, Follower>([
    ['ssh', maskRemoteCommand],
    ['scp', maskScp],
    ['sftp', maskSftp],
    ['watch', maskWatch],
    ['su', maskSu],
    ['runuser', maskSu],
    ['flock', maskFlock],
    ['find', maskFind],
    ['export', maskExport],
    ['git', maskGit],
    ['rsync', maskRsync],
    ['htpasswd', maskHtpasswd],
  ]));
}

/** The edits that mask the listed programs' credential values in command line `text`. */
function textEdits(text: string, depth: number): Edit[] {
  const edits: Edit[] = [];
  for (const words of simpleCommands(text)) maskCommand(words, 0, edits, depth);
  return edits;
}

/**
 * `text` (a command line) with the values of the listed programs' credential options as `***`:
 * `curl -u 'admin:***'`, `mysql -p***`, `openssl enc -pass pass:***`; every other character,
 * quotes included, as it was. Call it only when {@link programMay} passed.
 */
export function redactProgramText(text: string): string {
  const edits = textEdits(text, 0);
  if (edits.length === 0) return text;
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const edit of edits) {
    if (edit.start < at) continue; // each edit masks a different word, so none overlap; a guard all the same
    out += text.slice(at, edit.start) + edit.with;
    at = edit.end;
  }
  return out + text.slice(at);
}

/**
 * `argv` (a command and its arguments) with the listed programs' credential values as `***`, in
 * the same elements (`['curl', '-u', 'admin:pw']` → `['curl', '-u', 'admin:***']`); the same
 * array when nothing changes. An element that is a command line (`bash -c`'s, `su -c`'s, `env
 * -S`'s, `GIT_SSH_COMMAND=…`) is read as one, its edits in that element. The caller also redacts
 * each element as a command line, because cordon cannot know every program that runs an argument
 * as one (`git rebase --exec`), so an element that only mentions a listed program's option (a
 * commit message `mysql -pX fails`) is masked as well; the command gets its argv as it was, only
 * the records lose the value.
 */
export function redactProgramArgv(argv: readonly string[]): readonly string[] {
  if (argv.length < 2) return argv;
  const words = argv.map((text, element): Word => ({ source: text, element, text, start: 0, end: text.length }));
  const edits: Edit[] = [];
  maskCommand(words, 0, edits, 0);
  if (edits.length === 0) return argv;
  const out = [...argv];
  // An element that holds a command line (`bash -c`'s, `env -S`'s) may take several edits: each
  // is applied from its end back, so the offsets of those before it still hold.
  edits.sort((a, b) => a.element - b.element || b.start - a.start);
  let element = -1;
  let before = 0;
  for (const edit of edits) {
    if (edit.element !== element) {
      element = edit.element;
      before = Number.POSITIVE_INFINITY;
    }
    if (edit.end > before) continue; // each edit masks a different word, so none overlap; a guard all the same
    out[element] = out[element]!.slice(0, edit.start) + edit.with + out[element]!.slice(edit.end);
    before = edit.start;
  }
  return out;
}
