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
 * No regular expression: the text is split into shell words by a small scanner, and only when
 * one of the table's program names occurs in it at all.
 */

import { MASK } from './mask.js';

/** How an option's value is masked: all of it, or the part after a separator (the user name stays). */
type ValueShape =
  /** The whole value is the secret (`-phunter2`). */
  | 'whole'
  /** `user:password`: after the first `:`; without one the program asks for the password. */
  | 'after-colon'
  /** smbclient's `user%password`: after the first `%`. */
  | 'after-percent'
  /** OpenSSL's pass phrase argument: `pass:password` only (`env:VAR`, `file:path`, `fd:n`, `stdin` name no secret). */
  | 'openssl-pass';

/** One credential option of a program. */
interface CredentialOption {
  /** Its spellings with their dashes: `-u`, `--user`, `-passin`. */
  readonly names: readonly string[];
  readonly value: ValueShape;
  /** The value may follow a one-letter name in the same word (`-phunter2`, getopt style). */
  readonly attached?: boolean;
  /** The value may be the next word (`-p hunter2`); mysql's `-p` takes it attached only. */
  readonly separate?: boolean;
}

/** The credential options of one program (or family of programs sharing a manual). */
interface ProgramRule {
  readonly options: readonly CredentialOption[];
  /** One-letter flags without a value that may come first in the same word (`-xw secret`, `-sSu user:pw`). */
  readonly clustered?: string;
  /** The options count only after this subcommand (`docker login -p`, not `docker run -p 80:80`). */
  readonly subcommand?: string;
  /** The program runs a command after its own options (`sshpass -p x ssh -p 2222 host`): that command is read as a command of its own. */
  readonly runsCommand?: boolean;
}

/** Program name (the command word's last path part) → its rule; built on first use (a command line without a listed program's name never builds it). */
let programs: ReadonlyMap<string, ProgramRule> | undefined;
function programRules(): ReadonlyMap<string, ProgramRule> {
  return (programs ??= buildProgramRules());
}

/** The table: each program's credential options, with the manual that defines them. */
function buildProgramRules(): ReadonlyMap<string, ProgramRule> {
  // curl(1), https://curl.se/docs/manpage.html: `-u, --user <user:password>`, `-U, --proxy-user
  // <user:password>` (without `:password` curl prompts), `--oauth2-bearer <token>`, `--pass
  // <phrase>` and `--proxy-pass <phrase>` (private key pass phrases). Boolean short options may
  // precede in one word (`-fsSLu user:pw`).
  const CURL: ProgramRule = {
    options: [
      { names: ['-u', '--user', '-U', '--proxy-user'], value: 'after-colon', attached: true, separate: true },
      { names: ['--oauth2-bearer', '--pass', '--proxy-pass'], value: 'whole', separate: true },
    ],
    clustered: '0123456#aBfGgIijJkLlMNnOpqRSsvZ',
  };

  // MySQL "mysql Client Options", https://dev.mysql.com/doc/refman/8.4/en/mysql-command-options.html
  // (`--password[=password], -p[password]`: the value must follow `-p` with no space; a bare `-p`
  // prompts and the next word is the database), shared by mysqldump, mysqladmin, … and MariaDB's
  // clients, https://mariadb.com/kb/en/mariadb-command-line-client/.
  const MYSQL: ProgramRule = { options: [{ names: ['-p'], value: 'whole', attached: true, separate: false }] };

  // sshpass(1), https://manpages.debian.org/sshpass/sshpass.1.en.html: `-p password`, getopt
  // (`-ppassword` too); options end at the command it runs.
  const SSHPASS: ProgramRule = { options: [{ names: ['-p'], value: 'whole', attached: true, separate: true }], runsCommand: true };

  // redis-cli, https://redis.io/docs/latest/develop/tools/cli/ ("-a <password>", "--pass
  // <password>"; `--askpass` prompts and takes no value).
  const REDIS_CLI: ProgramRule = { options: [{ names: ['-a', '--pass'], value: 'whole', separate: true }] };

  // openssl-passphrase-options(1), https://docs.openssl.org/master/man1/openssl-passphrase-options/
  // (`-pass`, `-passin`, `-passout`, pkcs12's `-password`: `pass:password` holds it, other forms
  // name where it is), and openssl-enc(1), https://docs.openssl.org/master/man1/openssl-enc/
  // (`-k password`).
  const OPENSSL: ProgramRule = {
    options: [
      { names: ['-pass', '-passin', '-passout', '-password'], value: 'openssl-pass', separate: true },
      { names: ['-k'], value: 'whole', separate: true },
    ],
  };

  // OpenLDAP clients, https://www.openldap.org/software/man.cgi?query=ldapsearch (`-w passwd`;
  // `-W` prompts, `-y file` reads it), getopt: `-wpasswd` and `-xw passwd` too.
  const LDAP: ProgramRule = { options: [{ names: ['-w'], value: 'whole', attached: true, separate: true }], clustered: 'AcILMnNQtuvVWxZ' };
  // ldappasswd(1), https://www.openldap.org/software/man.cgi?query=ldappasswd: also `-a oldPasswd`
  // and `-s newPasswd`.
  const LDAPPASSWD: ProgramRule = { options: [{ names: ['-w', '-a', '-s'], value: 'whole', attached: true, separate: true }], clustered: 'AcIMnNQSvVWxZ' };

  // docker login, https://docs.docker.com/reference/cli/docker/login/, and podman-login(1),
  // https://docs.podman.io/en/latest/markdown/podman-login.1.html: `-p, --password`.
  const REGISTRY_LOGIN: ProgramRule = { options: [{ names: ['-p', '--password'], value: 'whole', attached: true, separate: true }], subcommand: 'login' };

  // smbclient(1), https://www.samba.org/samba/docs/current/man-html/smbclient.1.html ("-U|--user=
  // [DOMAIN\]USERNAME[%PASSWORD]"), the common option of Samba's client tools.
  const SAMBA: ProgramRule = { options: [{ names: ['-U', '--user'], value: 'after-percent', attached: true, separate: true }] };

  // mongosh, https://www.mongodb.com/docs/mongodb-shell/reference/options/ ("-p, --password
  // <password>"), and the Database Tools, e.g. https://www.mongodb.com/docs/database-tools/mongodump/.
  const MONGO: ProgramRule = { options: [{ names: ['-p', '--password'], value: 'whole', separate: true }] };

  return new Map<string, ProgramRule>([
    ['curl', CURL],
    ...['mysql', 'mysqldump', 'mysqladmin', 'mysqlimport', 'mysqlshow', 'mysqlcheck', 'mysqlpump', 'mysqlbinlog', 'mysqlslap', 'mariadb', 'mariadb-dump', 'mariadb-admin', 'mariadb-import', 'mariadb-show', 'mariadb-check', 'mariadb-binlog', 'mariadb-slap'].map((name) => [name, MYSQL] as const),
    ['sshpass', SSHPASS],
    ['redis-cli', REDIS_CLI],
    ['openssl', OPENSSL],
    ...['ldapsearch', 'ldapmodify', 'ldapadd', 'ldapdelete', 'ldapmodrdn', 'ldapcompare', 'ldapwhoami', 'ldapexop'].map((name) => [name, LDAP] as const),
    ['ldappasswd', LDAPPASSWD],
    ['docker', REGISTRY_LOGIN],
    ['podman', REGISTRY_LOGIN],
    ['smbclient', SAMBA],
    ['rpcclient', SAMBA],
    ['smbcacls', SAMBA],
    ...['mongosh', 'mongo', 'mongodump', 'mongorestore', 'mongoexport', 'mongoimport', 'mongostat', 'mongotop', 'mongofiles'].map((name) => [name, MONGO] as const),
  ]);
}

/**
 * Lower-case pieces one of which every command naming a listed program holds (a program's name,
 * or its subcommand): text with none of them is returned before it is split into words.
 */
const HINTS = ['curl', 'mysql', 'mariadb', 'sshpass', 'redis-cli', 'openssl', 'ldap', 'login', 'smbc', 'rpcclient', 'mongo'];

/** Whether lower-cased text may hold a listed program's credential option (substring tests only). */
export function programMay(lower: string): boolean {
  if (!lower.includes('-')) return false;
  for (const hint of HINTS) if (lower.includes(hint)) return true;
  return false;
}

/**
 * Words that come before the program and run it: each one's options that take a value (so the
 * value is not read as the program). sudo(8) https://www.sudo.ws/docs/man/sudo.man/, env(1),
 * exec/command/time (bash(1) "SHELL BUILTIN COMMANDS", GNU time(1)), nohup(1).
 */
let wrappers: ReadonlyMap<string, readonly string[]> | undefined;
function wrapperOptions(): ReadonlyMap<string, readonly string[]> {
  return (wrappers ??= new Map([
    ['sudo', ['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-T', '-U', '-R', '--user', '--group', '--host', '--prompt', '--close-from', '--chdir', '--role', '--type', '--command-timeout', '--other-user', '--chroot']],
    ['env', ['-u', '-C', '-S', '--unset', '--chdir', '--split-string']],
    ['exec', ['-a']],
    ['command', []],
    ['time', ['-f', '-o', '--format', '--output']],
    ['nohup', []],
  ]));
}

/** Reserved words that may open a command (`if curl …`, `! mysql …`, `{ curl …; }`). */
const OPENERS = ['!', '{', 'if', 'then', 'elif', 'else', 'do', 'while', 'until'];

/** How deep `bash -c "sh -c '…'"` is read (argv starts at it: its `-c` element is redacted as text on its own). */
const MAX_DEPTH = 3;

/** Shells whose `-c` word is itself a command line (`bash -c 'curl -u a:b x'`). */
const SHELLS = ['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash'];

/**
 * One shell word: its text after quote removal, and for each of its characters where it starts
 * and ends in the source (`'a'` → text `a` at 1..2), so a masked value keeps its quotes.
 */
interface Word {
  /** The text the offsets below point into: the command line, or for argv the element itself. */
  readonly source: string;
  /** The argv element it is (-1 in a command line). */
  readonly element: number;
  readonly text: string;
  /** Where each character of `text` starts and ends in `source`; absent when `text` is `source` itself (an argv element). */
  readonly starts?: readonly number[];
  readonly ends?: readonly number[];
  /** The word's span in the source. */
  readonly start: number;
  readonly end: number;
}

/** A replacement of `source.slice(start, end)` (in argv element `element`, or the command line for -1). */
interface Edit {
  readonly element: number;
  readonly start: number;
  readonly end: number;
  readonly with: string;
}

/**
 * `text` (a command line) split into simple commands of words, as a POSIX shell reads it closely
 * enough for finding options: quotes and backslashes are removed from a word's text; `;`, `&`,
 * `|`, new lines, parentheses and backquotes end a command; redirection operators end a word.
 */
function commands(text: string): Word[][] {
  const out: Word[][] = [];
  let command: Word[] = [];
  let chars: string[] = [];
  let starts: number[] = [];
  let ends: number[] = [];
  let start = -1;
  const endWord = (end: number): void => {
    if (start >= 0) command.push({ source: text, element: -1, text: chars.join(''), starts, ends, start, end });
    chars = [];
    starts = [];
    ends = [];
    start = -1;
  };
  const endCommand = (end: number): void => {
    endWord(end);
    if (command.length > 0) out.push(command);
    command = [];
  };
  const add = (c: string, from: number, to: number): void => {
    chars.push(c);
    starts.push(from);
    ends.push(to);
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') {
      endWord(i);
      i++;
    } else if (c === '\n' || c === ';' || c === '|' || c === '(' || c === ')' || c === '`') {
      endCommand(i);
      i++;
    } else if (c === '&') {
      // `>&2` and `&>` redirect; any other `&` ends a command.
      const redirect = text[i - 1] === '>' || text[i - 1] === '<' || text[i + 1] === '>';
      if (redirect) endWord(i);
      else endCommand(i);
      i++;
    } else if (c === '<' || c === '>') {
      endWord(i);
      i++;
    } else if (c === '\\') {
      if (text[i + 1] === '\n') {
        i += 2; // a line continuation: neither text nor a break
        continue;
      }
      if (start < 0) start = i;
      if (i + 1 < text.length) add(text[i + 1]!, i, i + 2);
      i += 2;
    } else if (c === "'") {
      if (start < 0) start = i;
      let j = i + 1;
      while (j < text.length && text[j] !== "'") {
        add(text[j]!, j, j + 1);
        j++;
      }
      i = j + 1;
    } else if (c === '"') {
      if (start < 0) start = i;
      let j = i + 1;
      while (j < text.length && text[j] !== '"') {
        const next = text[j + 1];
        if (text[j] === '\\' && (next === '"' || next === '\\' || next === '$' || next === '`')) {
          add(next, j, j + 2);
          j += 2;
        } else {
          add(text[j]!, j, j + 1);
          j++;
        }
      }
      i = j + 1;
    } else {
      if (start < 0) start = i;
      add(c, i, i + 1);
      i++;
    }
  }
  endCommand(Math.min(i, text.length));
  return out;
}

/** Where the secret starts in an option's value, or -1 when it holds none (empty, a `$REFERENCE`, no password part). */
function secretStart(value: string, shape: ValueShape): number {
  let at = 0;
  if (shape === 'after-colon' || shape === 'after-percent') {
    const separator = value.indexOf(shape === 'after-colon' ? ':' : '%');
    if (separator < 0) return -1;
    at = separator + 1;
  } else if (shape === 'openssl-pass') {
    if (!value.startsWith('pass:')) return -1;
    at = 5;
  }
  return at >= value.length || value[at] === '$' ? -1 : at;
}

/**
 * The edit that masks `word`'s text from character `from` on: the characters go, `***` takes the
 * first one's place, and the quotes among them stay (`-u 'admin:pw'` → `-u 'admin:***'`).
 */
function maskFrom(word: Word, from: number): Edit | undefined {
  if (word.text.slice(from) === MASK) return undefined;
  const { source, starts, ends } = word;
  if (starts === undefined || ends === undefined) return { element: word.element, start: from, end: source.length, with: MASK };
  const start = starts[from]!;
  const end = ends[ends.length - 1]!;
  let kept = '';
  // Quote characters in the span are the ones no character of the text covers.
  let covered = from;
  for (let at = start; at < end; at++) {
    while (covered < word.text.length && ends[covered]! <= at) covered++;
    if (covered >= word.text.length || starts[covered]! > at) kept += source[at];
  }
  return { element: word.element, start, end, with: MASK + kept };
}

/** Reads a one-letter option cluster (`-sSu`): the credential option it ends in and where its attached value starts, if any. */
function clusterOption(text: string, rule: ProgramRule): { option: CredentialOption; at: number } | undefined {
  if (text.length < 2 || text[0] !== '-' || text[1] === '-') return undefined;
  for (let i = 1; i < text.length; i++) {
    const name = `-${text[i]}`;
    const option = rule.options.find((o) => o.names.includes(name));
    // The first letter always counts; later ones only after flags the program lists as boolean.
    if (option) return i === 1 || rule.clustered !== undefined ? { option, at: i + 1 } : undefined;
    if (rule.clustered === undefined || !rule.clustered.includes(text[i]!)) return undefined;
  }
  return undefined;
}

/**
 * Adds the edits masking the credential option values in one simple command's words
 * (`words[from]` is the program word); returns the index of the next word to read as a command
 * (a program that runs one: sshpass), or the end.
 */
function maskProgramArguments(words: readonly Word[], from: number, rule: ProgramRule, edits: Edit[]): number {
  let i = from + 1;
  if (rule.subcommand !== undefined) {
    while (i < words.length && words[i]!.text.startsWith('-')) i++;
    if (i >= words.length || words[i]!.text !== rule.subcommand) return words.length;
    i++;
  }
  for (; i < words.length; i++) {
    const text = words[i]!.text;
    // After `--` only operands follow (or, for sshpass, the command it runs).
    if (text === '--') return rule.runsCommand ? i + 1 : words.length;
    if (!text.startsWith('-') || text.length < 2) {
      if (rule.runsCommand) return i;
      continue;
    }
    const whole = rule.options.find((o) => o.names.includes(text));
    if (whole) {
      // A value that starts with `-` is the next option (`mongosh -p --host x` prompts).
      const next = words[i + 1];
      if (whole.separate && next !== undefined && !next.text.startsWith('-')) {
        const at = secretStart(next.text, whole.value);
        const edit = at >= 0 ? maskFrom(next, at) : undefined;
        if (edit) edits.push(edit);
        i++;
      }
      continue;
    }
    const equals = text.indexOf('=');
    if (text.startsWith('--') && equals > 0) {
      const option = rule.options.find((o) => o.names.includes(text.slice(0, equals)));
      const at = option ? secretStart(text.slice(equals + 1), option.value) : -1;
      const edit = at >= 0 ? maskFrom(words[i]!, equals + 1 + at) : undefined;
      if (edit) edits.push(edit);
      continue;
    }
    const cluster = clusterOption(text, rule);
    if (!cluster) continue;
    if (cluster.at < text.length) {
      if (!cluster.option.attached) continue;
      // `-p=x`: the `=` stays in sight, what follows goes.
      const valueAt = text[cluster.at] === '=' ? cluster.at + 1 : cluster.at;
      const at = secretStart(text.slice(valueAt), cluster.option.value);
      const edit = at >= 0 ? maskFrom(words[i]!, valueAt + at) : undefined;
      if (edit) edits.push(edit);
    } else if (cluster.option.separate) {
      const next = words[i + 1];
      if (next !== undefined && !next.text.startsWith('-')) {
        const at = secretStart(next.text, cluster.option.value);
        const edit = at >= 0 ? maskFrom(next, at) : undefined;
        if (edit) edits.push(edit);
        i++;
      }
    }
  }
  return words.length;
}

/** Index of the word after a wrapper's options (`sudo -u root curl` → `curl`). */
function skipWrapperOptions(words: readonly Word[], i: number, valued: readonly string[], wrapper: string): number {
  while (i < words.length) {
    const text = words[i]!.text;
    if (text === '--') return i + 1;
    if (wrapper === 'env' && isAssignment(text)) {
      i++;
      continue;
    }
    if (!text.startsWith('-') || text === '-') return wrapper === 'env' && text === '-' ? i + 1 : i;
    i += takesNext(text, valued) ? 2 : 1;
  }
  return i;
}

/** Whether option word `text` of a wrapper leaves its value to the next word (`-u` of `sudo -u root`, also `-Eu`). */
function takesNext(text: string, valued: readonly string[]): boolean {
  if (text.startsWith('--')) return !text.includes('=') && valued.includes(text);
  for (let j = 1; j < text.length; j++) if (valued.includes(`-${text[j]}`)) return j === text.length - 1;
  return false;
}

/** Whether `text` is a shell variable assignment (`NAME=value`). */
function isAssignment(text: string): boolean {
  const equals = text.indexOf('=');
  if (equals <= 0) return false;
  for (let j = 0; j < equals; j++) {
    const c = text.charCodeAt(j);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!letter && !(j > 0 && c >= 48 && c <= 57)) return false;
  }
  return true;
}

/** The last path part of a command word (`/usr/bin/curl` → `curl`). */
function programName(text: string): string {
  return text.slice(text.lastIndexOf('/') + 1);
}

/**
 * Adds the edits for one simple command (`words` from `i` on): assignments, wrappers and reserved
 * words are passed over to the program word; a listed program's credential values are masked;
 * a shell's `-c` command line is read as a command line of its own.
 */
function maskCommand(words: readonly Word[], i: number, edits: Edit[], depth: number): void {
  while (i < words.length) {
    const text = words[i]!.text;
    if (isAssignment(text) || OPENERS.includes(text)) {
      i++;
      continue;
    }
    const name = programName(text);
    const valued = wrapperOptions().get(name);
    if (valued !== undefined) {
      i = skipWrapperOptions(words, i + 1, valued, name);
      continue;
    }
    const rule = programRules().get(name);
    if (rule) {
      i = maskProgramArguments(words, i, rule, edits);
      continue;
    }
    if (SHELLS.includes(name) && depth < MAX_DEPTH) maskShellCommand(words, i, edits, depth);
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
    const script = words[j + 1]!;
    const source = script.source;
    // The command line is read from the source between its quotes, so edits land on source offsets.
    const quote = source[script.start];
    const quoted = (quote === "'" || quote === '"') && source[script.end - 1] === quote && script.end - script.start >= 2;
    const from = quoted ? script.start + 1 : script.start;
    const to = quoted ? script.end - 1 : script.end;
    for (const edit of textEdits(source.slice(from, to), depth + 1)) edits.push({ element: -1, start: from + edit.start, end: from + edit.end, with: edit.with });
    return;
  }
}

/** The edits that mask the listed programs' credential values in command line `text`. */
function textEdits(text: string, depth: number): Edit[] {
  const edits: Edit[] = [];
  for (const words of commands(text)) maskCommand(words, 0, edits, depth);
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
 * array when nothing changes. A shell's `-c` element is left to the caller's text redaction
 * (each element of an argv is also redacted as text).
 */
export function redactProgramArgv(argv: readonly string[]): readonly string[] {
  if (argv.length < 2) return argv;
  const words = argv.map((text, element): Word => ({ source: text, element, text, start: 0, end: text.length }));
  const edits: Edit[] = [];
  maskCommand(words, 0, edits, MAX_DEPTH);
  if (edits.length === 0) return argv;
  const out = [...argv];
  // One edit per element at most: each option value is one element.
  for (const edit of edits) out[edit.element] = out[edit.element]!.slice(0, edit.start) + edit.with + out[edit.element]!.slice(edit.end);
  return out;
}
