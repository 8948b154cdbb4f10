// The table of programs whose manual gives an option a secret (curl's `-u user:password`,
// mysql's `-ppassword` …), each with that manual cited, and the masking of those values in one
// simple command's words.
import { MASK } from '../mask.js';
import { DOCKER_GLOBALS, PODMAN_GLOBALS } from './containers.js';
import { skipOptions } from './option-words.js';
import type { Edit, Word } from './types.js';

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
export interface ProgramRule {
  readonly options: readonly CredentialOption[];
  /** One-letter flags without a value that may come first in the same word (`-xw secret`, `-sSu user:pw`). */
  readonly clustered?: string;
  /** The options count only after this subcommand (`docker login -p`, not `docker run -p 80:80`). */
  readonly subcommand?: string;
  /** Options before the subcommand that take the next word as their value (`docker --config DIR login`). */
  readonly before?: readonly string[];
  /** The program runs a command after its own options (`sshpass -p x ssh -p 2222 host`): that command is read as a command of its own. */
  readonly runsCommand?: boolean;
}

let programs: ReadonlyMap<string, ProgramRule> | undefined;
/** Program name (the command word's last path part) → its rule; built on first use (a command line without a listed program's name never builds it). */
export function programRules(): ReadonlyMap<string, ProgramRule> {
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
  // https://docs.podman.io/en/latest/markdown/podman-login.1.html: `-p, --password`, after the
  // global options (`docker --config DIR login`).
  const LOGIN_OPTION: CredentialOption = { names: ['-p', '--password'], value: 'whole', attached: true, separate: true };
  const DOCKER_LOGIN: ProgramRule = { options: [LOGIN_OPTION], subcommand: 'login', before: DOCKER_GLOBALS };
  const PODMAN_LOGIN: ProgramRule = { options: [LOGIN_OPTION], subcommand: 'login', before: PODMAN_GLOBALS };

  // smbclient(1), https://www.samba.org/samba/docs/current/man-html/smbclient.1.html ("-U|--user=
  // [DOMAIN\]USERNAME[%PASSWORD]"), the common option of Samba's client tools.
  const SAMBA: ProgramRule = { options: [{ names: ['-U', '--user'], value: 'after-percent', attached: true, separate: true }] };

  // mongosh, https://www.mongodb.com/docs/mongodb-shell/reference/options/ ("-p, --password
  // <password>"), and the Database Tools, e.g. https://www.mongodb.com/docs/database-tools/mongodump/.
  const MONGO: ProgramRule = { options: [{ names: ['-p', '--password'], value: 'whole', separate: true }] };

  // sqlcmd, https://learn.microsoft.com/en-us/sql/tools/sqlcmd/sqlcmd-utility ("-P password";
  // `-p` is print statistics, no secret), also written attached (`-Ppassword`).
  const SQLCMD: ProgramRule = { options: [{ names: ['-P'], value: 'whole', attached: true, separate: true }] };

  // ssh-keygen(1), https://man.openbsd.org/ssh-keygen.1: `-P passphrase` (the old one), `-N
  // new_passphrase` (`-N ''` is none), getopt: attached and after its boolean flags (`-qN x`).
  const SSH_KEYGEN: ProgramRule = { options: [{ names: ['-P', '-N'], value: 'whole', attached: true, separate: true }], clustered: 'ABceGgHhiKkLlpQqUuvy' };

  // zip(1), https://manpages.debian.org/zip/zip.1.en.html: `-P password, --password password`,
  // after boolean flags in one word (`-rP x`), the value attached or not (Zip 3's option parser).
  const ZIP: ProgramRule = { options: [{ names: ['-P', '--password'], value: 'whole', attached: true, separate: true }], clustered: 'aABcdDeEfFghjklLmoqrRSTuvVwXyz' };

  // unzip(1), https://manpages.debian.org/unzip/unzip.1.en.html: `-P password`; its option
  // reader takes "-Ppasswd" or "-P passwd", after boolean flags (`-qoP x`).
  const UNZIP: ProgramRule = { options: [{ names: ['-P'], value: 'whole', attached: true, separate: true }], clustered: 'aAbBcCDfFhijJKlLMnNoqsStTuUvVWXYz' };

  // 7-Zip's `-p` switch, "-p{Password}" (7-Zip help, cmdline/switches/password.htm,
  // https://7-zip.opensource.jp/chm/cmdline/switches/password.htm): attached only; a bare `-p`
  // prompts. No other 7-Zip switch starts with `-p`.
  const SEVEN_ZIP: ProgramRule = { options: [{ names: ['-p'], value: 'whole', attached: true, separate: false }] };

  return new Map<string, ProgramRule>([
    ['curl', CURL],
    ...['mysql', 'mysqldump', 'mysqladmin', 'mysqlimport', 'mysqlshow', 'mysqlcheck', 'mysqlpump', 'mysqlbinlog', 'mysqlslap', 'mariadb', 'mariadb-dump', 'mariadb-admin', 'mariadb-import', 'mariadb-show', 'mariadb-check', 'mariadb-binlog', 'mariadb-slap'].map((name) => [name, MYSQL] as const),
    ['sshpass', SSHPASS],
    ['redis-cli', REDIS_CLI],
    ['openssl', OPENSSL],
    ...['ldapsearch', 'ldapmodify', 'ldapadd', 'ldapdelete', 'ldapmodrdn', 'ldapcompare', 'ldapwhoami', 'ldapexop'].map((name) => [name, LDAP] as const),
    ['ldappasswd', LDAPPASSWD],
    ['docker', DOCKER_LOGIN],
    ['podman', PODMAN_LOGIN],
    ['smbclient', SAMBA],
    ['rpcclient', SAMBA],
    ['smbcacls', SAMBA],
    ...['mongosh', 'mongo', 'mongodump', 'mongorestore', 'mongoexport', 'mongoimport', 'mongostat', 'mongotop', 'mongofiles'].map((name) => [name, MONGO] as const),
    ['sqlcmd', SQLCMD],
    ['ssh-keygen', SSH_KEYGEN],
    ['zip', ZIP],
    ['unzip', UNZIP],
    ...['7z', '7za', '7zr', '7zz'].map((name) => [name, SEVEN_ZIP] as const),
  ]);
}

/**
 * Lower-case pieces one of which every command naming a listed program holds (a program's name,
 * or its subcommand): text with none of them is returned before it is split into words.
 */
const HINTS = ['htpasswd', 'curl', 'mysql', 'mariadb', 'sshpass', 'redis-cli', 'openssl', 'ldap', 'login', 'smbc', 'rpcclient', 'mongo', 'sqlcmd', 'keygen', 'zip', '7z'];

/** Whether lower-cased text may hold a listed program's credential option (substring tests only). */
export function programMay(lower: string): boolean {
  if (!lower.includes('-')) return false;
  for (const hint of HINTS) if (lower.includes(hint)) return true;
  return false;
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
export function maskFrom(word: Word, from: number): Edit | undefined {
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
export function maskProgramArguments(words: readonly Word[], from: number, rule: ProgramRule, edits: Edit[]): number {
  let i = from + 1;
  if (rule.subcommand !== undefined) {
    i = skipOptions(words, i, rule.before ?? []);
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
