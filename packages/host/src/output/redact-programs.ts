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
 * `flock FILE -c`, `find -exec … ;`, `env -S`, `GIT_SSH_COMMAND=…`, `ssh -o ProxyCommand=…`:
 * {@link followers}, each citing its manual).
 *
 * No regular expression: the text is split into shell words by a small scanner, and only when
 * one of the table's program names occurs in it at all (a wrapper alone needs no scan: the
 * command it runs names its program).
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
  /** Options before the subcommand that take the next word as their value (`docker --config DIR login`). */
  readonly before?: readonly string[];
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
const HINTS = ['curl', 'mysql', 'mariadb', 'sshpass', 'redis-cli', 'openssl', 'ldap', 'login', 'smbc', 'rpcclient', 'mongo', 'sqlcmd', 'keygen', 'zip', '7z'];

/** Whether lower-cased text may hold a listed program's credential option (substring tests only). */
export function programMay(lower: string): boolean {
  if (!lower.includes('-')) return false;
  for (const hint of HINTS) if (lower.includes(hint)) return true;
  return false;
}

/**
 * docker's global options that take the next word as their value, which may come before its
 * subcommand (`docker --config DIR login`, `docker -H HOST exec`):
 * https://docs.docker.com/reference/cli/docker/ ("Options").
 */
const DOCKER_GLOBALS = ['--config', '-c', '--context', '-H', '--host', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey'];

/**
 * podman's global options that take a value, https://docs.podman.io/en/latest/markdown/podman.1.html
 * ("GLOBAL OPTIONS").
 */
const PODMAN_GLOBALS = ['--cdi-spec-dir', '--cgroup-manager', '--config', '--conmon', '-c', '--connection', '--events-backend', '--hooks-dir', '--identity', '--imagestore', '--log-level', '--module', '--network-cmd-path', '--network-config-dir', '--out', '--root', '--runroot', '--runtime', '--runtime-flag', '--ssh', '--storage-driver', '--storage-opt', '--tmpdir', '--url', '--volumepath'];

/** A word that runs the rest of its words as a command: its options that take a value, and the operands before the command. */
interface Wrapper {
  /** Options whose value is the next word (`-u` of `sudo -u root`); an attached value (`-n5`, `--signal=KILL`) needs none. */
  readonly valued: readonly string[];
  /** Operands between its options and the command (`timeout`'s duration). */
  readonly operands: number;
}

/**
 * Words that come before the program and run it, each with its options that take a value (so
 * the value is not read as the program): sudo(8) https://www.sudo.ws/docs/man/sudo.man/, env(1),
 * exec/command/time (bash(1) "SHELL BUILTIN COMMANDS", GNU time(1)), nohup(1); GNU coreutils'
 * timeout https://www.gnu.org/software/coreutils/manual/html_node/timeout-invocation.html (`-k
 * DURATION`, `-s SIGNAL`, then the DURATION operand), nice
 * https://www.gnu.org/software/coreutils/manual/html_node/nice-invocation.html (`-n N`; the
 * obsolete `-N` takes none) and stdbuf
 * https://www.gnu.org/software/coreutils/manual/html_node/stdbuf-invocation.html (`-i`, `-o`, `-e
 * MODE`); util-linux ionice(1) https://man7.org/linux/man-pages/man1/ionice.1.html (`-c`, `-n`,
 * `-p`, `-P`, `-u`); GNU findutils' xargs(1) https://man7.org/linux/man-pages/man1/xargs.1.html
 * (`-a`, `-d`, `-E`, `-I`, `-L`, `-n`, `-P`, `-s`; `-e`, `-i`, `-l` take theirs attached only);
 * OpenBSD doas(1) https://man.openbsd.org/doas.1 (`-C config`, `-u user`).
 */
let wrappers: ReadonlyMap<string, Wrapper> | undefined;
function wrapperRules(): ReadonlyMap<string, Wrapper> {
  const wrapper = (valued: readonly string[], operands = 0): Wrapper => ({ valued, operands });
  return (wrappers ??= new Map([
    ['sudo', wrapper(['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-T', '-U', '-R', '--user', '--group', '--host', '--prompt', '--close-from', '--chdir', '--role', '--type', '--command-timeout', '--other-user', '--chroot'])],
    ['env', wrapper(['-u', '-C', '-S', '--unset', '--chdir', '--split-string'])],
    ['exec', wrapper(['-a'])],
    ['command', wrapper([])],
    ['time', wrapper(['-f', '-o', '--format', '--output'])],
    ['nohup', wrapper([])],
    ['timeout', wrapper(['-k', '-s', '--kill-after', '--signal'], 1)],
    ['nice', wrapper(['-n', '--adjustment'])],
    ['ionice', wrapper(['-c', '-n', '-p', '-P', '-u', '--class', '--classdata', '--pid', '--pgid', '--uid'])],
    ['stdbuf', wrapper(['-i', '-o', '-e', '--input', '--output', '--error'])],
    ['xargs', wrapper(['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'])],
    ['doas', wrapper(['-C', '-u'])],
  ]));
}

/**
 * docker run's options that take a value, https://docs.docker.com/reference/cli/docker/container/run/
 * ("Options"; the others, `-d`, `-i`, `-t`, `-P`, `--rm`, `--init`, `--privileged`, `--read-only`
 * …, are flags): an option missing here would have its value read as the image, and the image
 * as the command.
 */
const DOCKER_RUN = ['--add-host', '--annotation', '-a', '--attach', '--blkio-weight', '--blkio-weight-device', '--cap-add', '--cap-drop', '--cgroup-parent', '--cgroupns', '--cidfile', '--cpu-count', '--cpu-percent', '--cpu-period', '--cpu-quota', '--cpu-rt-period', '--cpu-rt-runtime', '-c', '--cpu-shares', '--cpus', '--cpuset-cpus', '--cpuset-mems', '--detach-keys', '--device', '--device-cgroup-rule', '--device-read-bps', '--device-read-iops', '--device-write-bps', '--device-write-iops', '--dns', '--dns-option', '--dns-search', '--domainname', '--entrypoint', '-e', '--env', '--env-file', '--expose', '--gpus', '--group-add', '--health-cmd', '--health-interval', '--health-retries', '--health-start-interval', '--health-start-period', '--health-timeout', '-h', '--hostname', '--io-maxbandwidth', '--io-maxiops', '--ip', '--ip6', '--ipc', '--isolation', '--kernel-memory', '-l', '--label', '--label-file', '--link', '--link-local-ip', '--log-driver', '--log-opt', '--mac-address', '-m', '--memory', '--memory-reservation', '--memory-swap', '--memory-swappiness', '--mount', '--name', '--network', '--net', '--network-alias', '--net-alias', '--oom-score-adj', '--pid', '--pids-limit', '--platform', '-p', '--publish', '--pull', '--restart', '--runtime', '--security-opt', '--shm-size', '--stop-signal', '--stop-timeout', '--storage-opt', '--sysctl', '--tmpfs', '--ulimit', '-u', '--user', '--userns', '--uts', '-v', '--volume', '--volume-driver', '--volumes-from', '-w', '--workdir'];

/**
 * podman-run(1)'s options that take a value, https://docs.podman.io/en/latest/markdown/podman-run.1.html:
 * docker run's and podman's own.
 */
const PODMAN_RUN = [...DOCKER_RUN, '--arch', '--authfile', '--cert-dir', '--cgroup-conf', '--cgroups', '--chrootdirs', '--conmon-pidfile', '--creds', '--decryption-key', '--device-cgroup-rule', '--env-merge', '--gidmap', '--group-entry', '--hostuser', '--image-volume', '--init-path', '--os', '--passwd-entry', '--personality', '--pidfile', '--pod', '--pod-id-file', '--preserve-fd', '--rdt-class', '--requires', '--retry', '--retry-delay', '--sdnotify', '--seccomp-policy', '--secret', '--subgidname', '--subuidname', '--timeout', '--tz', '--uidmap', '--umask', '--unsetenv', '--variant'];

/** A subcommand that runs a command inside something else (`docker exec CONTAINER cmd …`). */
interface Launch {
  /** The subcommand's words after the program (`exec`, `container exec`). */
  readonly path: readonly string[];
  /** Options before each of those words that take the next word as their value (the program's global options). */
  readonly before: readonly string[];
  /** The subcommand's options that take the next word as their value. */
  readonly valued: readonly string[];
  /** Operands between its options and the command (the container, the pod). */
  readonly operands: number;
  /** Options that stand for the operand (`podman exec --latest`). */
  readonly instead?: readonly string[];
  /** The command follows the first `--` when there is one (kubectl exec). */
  readonly dashes?: boolean;
}

/**
 * Programs whose subcommand runs a command: docker exec
 * https://docs.docker.com/reference/cli/docker/container/exec/ (`-e`, `--env-file`, `-u`, `-w`,
 * `--detach-keys`, then CONTAINER; also `docker container exec`), podman-exec(1)
 * https://docs.podman.io/en/latest/markdown/podman-exec.1.html (also `--preserve-fd(s)`,
 * `--cidfile`; `-l, --latest` takes the container's place), kubectl exec
 * https://kubernetes.io/docs/reference/kubectl/generated/kubectl_exec/ (`kubectl exec POD --
 * COMMAND`; before `--` its own `-c`, `-f`, `--pod-running-timeout` and kubectl's global options,
 * https://kubernetes.io/docs/reference/kubectl/generated/kubectl_options/), and Compose's exec
 * https://docs.docker.com/reference/cli/docker/compose/exec/ (`docker compose exec SERVICE
 * COMMAND`, also the older `docker-compose`: `-e`, `--index`, `-u`, `-w`; before `exec`,
 * Compose's own `-f`, `-p`, `--profile`, `--env-file`, `--project-directory`, `--ansi`,
 * `--progress`, `--parallel`, https://docs.docker.com/reference/cli/docker/compose/), and `docker
 * run [OPTIONS] IMAGE [COMMAND] [ARG...]` / `podman run` (also `container run`), the command
 * after the image ({@link DOCKER_RUN}, {@link PODMAN_RUN}).
 */
let launches: ReadonlyMap<string, readonly Launch[]> | undefined;
function launchRules(): ReadonlyMap<string, readonly Launch[]> {
  if (launches) return launches;
  const dockerExec = ['-e', '--env', '--env-file', '-u', '--user', '-w', '--workdir', '--detach-keys'];
  const podmanExec = [...dockerExec, '--preserve-fd', '--preserve-fds', '--cidfile'];
  const kubectlGlobals = ['-n', '--namespace', '--context', '--kubeconfig', '-s', '--server', '--cluster', '--user', '--token', '--as', '--as-group', '--as-uid', '--certificate-authority', '--client-certificate', '--client-key', '--request-timeout', '--cache-dir', '--tls-server-name', '-v', '--v', '--vmodule', '--log-file'];
  const composeGlobals = ['-f', '--file', '-p', '--project-name', '--profile', '--env-file', '--project-directory', '--ansi', '--progress', '--parallel'];
  const composeExec = ['-e', '--env', '--index', '-u', '--user', '-w', '--workdir'];
  const container = (path: readonly string[], before: readonly string[], valued: readonly string[], instead?: readonly string[]): Launch => ({ path, before, valued, operands: 1, instead });
  launches = new Map<string, readonly Launch[]>([
    ['docker', [container(['exec'], DOCKER_GLOBALS, dockerExec), container(['container', 'exec'], DOCKER_GLOBALS, dockerExec), container(['compose', 'exec'], [...DOCKER_GLOBALS, ...composeGlobals], composeExec), container(['run'], DOCKER_GLOBALS, DOCKER_RUN), container(['container', 'run'], DOCKER_GLOBALS, DOCKER_RUN)]],
    ['docker-compose', [container(['exec'], composeGlobals, composeExec)]],
    ['podman', [container(['exec'], PODMAN_GLOBALS, podmanExec, ['-l', '--latest']), container(['container', 'exec'], PODMAN_GLOBALS, podmanExec, ['-l', '--latest']), container(['run'], PODMAN_GLOBALS, PODMAN_RUN), container(['container', 'run'], PODMAN_GLOBALS, PODMAN_RUN)]],
    ['kubectl', [{ path: ['exec'], before: kubectlGlobals, valued: [...kubectlGlobals, '-c', '--container', '-f', '--filename', '--pod-running-timeout'], operands: 1, dashes: true }]],
  ]);
  return launches;
}

/**
 * ssh(1)'s options that take a value, https://man.openbsd.org/ssh.1 (`-B -b -c -D -E -e -F -I
 * -i -J -L -l -m -O -o -P -p -Q -R -S -W -w`); the others are flags.
 */
const SSH_VALUED = ['-B', '-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-P', '-p', '-Q', '-R', '-S', '-W', '-w'];

/** Reserved words that may open a command (`if curl …`, `! mysql …`, `{ curl …; }`). */
const OPENERS = ['!', '{', 'if', 'then', 'elif', 'else', 'do', 'while', 'until'];

/** How deep command lines inside command lines are read (`bash -c "sh -c '…'"`, `GIT_SSH_COMMAND='ssh -o ProxyCommand=…'`). */
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

/**
 * Index of the first word from `i` on that is not an option (nor the value of one of `valued`),
 * or of the `--` that ends the options; `words.length` when there is none.
 */
function skipOptions(words: readonly Word[], i: number, valued: readonly string[]): number {
  while (i < words.length) {
    const text = words[i]!.text;
    if (text === '--' || !text.startsWith('-') || text === '-') return i;
    i += takesNext(text, valued) ? 2 : 1;
  }
  return i;
}

/** Index of the command a wrapper runs (`sudo -u root curl` → `curl`, `timeout -s KILL 5 mysql` → `mysql`). */
function skipWrapperOptions(words: readonly Word[], i: number, wrapper: Wrapper, name: string): number {
  while (i < words.length) {
    const text = words[i]!.text;
    if (text === '--') {
      i++;
      break;
    }
    if (name === 'env' && isAssignment(text)) {
      i++;
      continue;
    }
    if (!text.startsWith('-') || text === '-') {
      if (name === 'env' && text === '-') i++;
      break;
    }
    i += takesNext(text, wrapper.valued) ? 2 : 1;
  }
  return i + wrapper.operands;
}

/**
 * Index of the command that `words[i]`'s subcommand runs (`docker exec -u root c mysql …` →
 * `mysql`, `kubectl exec pod -- mysql …` → `mysql`), or -1 when the words are not that
 * subcommand or name no command.
 */
function launchedCommand(words: readonly Word[], i: number, launch: Launch): number {
  let at = i + 1;
  for (const step of launch.path) {
    at = skipOptions(words, at, launch.before);
    if (at >= words.length || words[at]!.text !== step) return -1;
    at++;
  }
  if (launch.dashes) {
    for (let j = at; j < words.length; j++) if (words[j]!.text === '--') return j + 1 < words.length ? j + 1 : -1;
  }
  let operands = launch.operands;
  while (at < words.length) {
    const text = words[at]!.text;
    if (text === '--') {
      at++;
      break;
    }
    if (!text.startsWith('-') || text === '-') break;
    if (launch.instead?.includes(text)) operands = 0;
    at += takesNext(text, launch.valued) ? 2 : 1;
  }
  at += operands;
  return at < words.length ? at : -1;
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
 * the command a subcommand runs (`docker exec c …`) is read as a command of its own, and so are a
 * shell's `-c` command line and ssh's remote command.
 */
function maskCommand(words: readonly Word[], i: number, edits: Edit[], depth: number): void {
  while (i < words.length) {
    const text = words[i]!.text;
    if (isAssignment(text)) {
      maskAssignment(words[i]!, edits, depth);
      i++;
      continue;
    }
    if (OPENERS.includes(text)) {
      i++;
      continue;
    }
    const name = programName(text);
    if (name === 'env') {
      i = envCommand(words, i, edits, depth);
      continue;
    }
    const wrapper = wrapperRules().get(name);
    if (wrapper !== undefined) {
      i = skipWrapperOptions(words, i + 1, wrapper, name);
      continue;
    }
    const launched = launchedAt(words, i, name);
    if (launched >= 0) {
      i = launched;
      continue;
    }
    const rule = programRules().get(name);
    if (rule) {
      i = maskProgramArguments(words, i, rule, edits);
      continue;
    }
    const follow = followers().get(name);
    if (follow) follow(words, i, edits, depth);
    else if (SHELLS.includes(name) && depth < MAX_DEPTH) maskShellCommand(words, i, edits, depth);
    return;
  }
}

/** Index of the command that program `name` (at `words[i]`) runs through one of its subcommands, or -1. */
function launchedAt(words: readonly Word[], i: number, name: string): number {
  const list = launchRules().get(name);
  if (list === undefined) return -1;
  for (const launch of list) {
    const at = launchedCommand(words, i, launch);
    if (at >= 0) return at;
  }
  return -1;
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
 * The simple commands of `word`'s text from character `from` on, read as a command line, each
 * word's offsets in `word`'s own source (or argv element), so that an edit of an inner word lands
 * where its characters are and the quotes of both levels stay (`bash -c "mysql -p'x y'"` →
 * `-p'***'`). The text is the word's after quote removal, as the program that runs it gets it.
 */
function innerWords(word: Word, from: number): Word[][] {
  const startOf = (k: number): number => (word.starts ? word.starts[k]! : k);
  const endOf = (k: number): number => (word.ends ? word.ends[k]! : k + 1);
  return commands(word.text.slice(from)).map((command) =>
    command.map((inner): Word => ({
      source: word.source,
      element: word.element,
      text: inner.text,
      starts: inner.starts!.map((at) => startOf(from + at)),
      ends: inner.ends!.map((at) => endOf(from + at - 1)),
      start: startOf(from + inner.start),
      end: endOf(from + inner.end - 1),
    })),
  );
}

/**
 * The edits in ssh's remote command (`ssh [options] destination command …`, ssh(1): the words
 * after the destination, joined with spaces, are run by the remote user's shell), and in the
 * commands its `-o` options hold (`-o ProxyCommand=…`, see {@link maskConfigCommand}). OpenSSH
 * reads options after the destination too (`ssh host -p 22 cmd`).
 */
function maskRemoteCommand(words: readonly Word[], i: number, edits: Edit[], depth: number): void {
  let destination = sshOptions(words, i + 1, SSH_VALUED, edits, depth);
  if (destination < words.length && words[destination]!.text === '--') destination++;
  if (destination >= words.length) return;
  let command = sshOptions(words, destination + 1, SSH_VALUED, edits, depth);
  if (command < words.length && words[command]!.text === '--') command++;
  if (command >= words.length) return;
  maskJoinedCommand(words, command, edits, depth);
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

/**
 * Index of the first word from `i` on that is not an option of ssh, scp or sftp (as
 * {@link skipOptions}), adding the edits in the commands its `-o` options hold.
 */
function sshOptions(words: readonly Word[], i: number, valued: readonly string[], edits: Edit[], depth: number): number {
  while (i < words.length) {
    const text = words[i]!.text;
    if (text === '--' || !text.startsWith('-') || text === '-') return i;
    const option = shortValue(words, i, 'o', valued);
    if (option) maskConfigCommand(option.word, option.from, edits, depth);
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
function maskConfigCommand(word: Word, from: number, edits: Edit[], depth: number): void {
  const text = word.text;
  let at = from;
  while (at < text.length && ((text[at]! >= 'a' && text[at]! <= 'z') || (text[at]! >= 'A' && text[at]! <= 'Z'))) at++;
  if (!SSH_COMMAND_KEYWORDS.includes(text.slice(from, at).toLowerCase())) return;
  while (text[at] === ' ' || text[at] === '\t') at++;
  if (text[at] === '=') at++;
  while (text[at] === ' ' || text[at] === '\t') at++;
  maskScript(word, edits, depth, at);
}

/**
 * The value of one-letter option `letter` in getopt option word `words[j]` (`-S x`, `-Sx`, `-iS
 * x`, after flags in one word): the word that holds it, where in that word's text it starts,
 * and the index of the word after it; undefined when the word is another option, or a letter in
 * `valued` (an option that takes the rest as its value) comes first.
 */
function shortValue(words: readonly Word[], j: number, letter: string, valued: readonly string[]): { word: Word; from: number; next: number } | undefined {
  const text = words[j]!.text;
  if (text.length < 2 || text[0] !== '-' || text[1] === '-') return undefined;
  for (let k = 1; k < text.length; k++) {
    if (text[k] === letter) {
      if (k + 1 < text.length) return { word: words[j]!, from: k + 1, next: j + 1 };
      return j + 1 < words.length ? { word: words[j + 1]!, from: 0, next: j + 2 } : undefined;
    }
    if (valued.includes(`-${text[k]}`)) return undefined;
  }
  return undefined;
}

/** The value of long option `name` in `words[j]` (`--command x`, `--command=x`), as {@link shortValue}. */
function longValue(words: readonly Word[], j: number, name: string): { word: Word; from: number; next: number } | undefined {
  const text = words[j]!.text;
  if (text === name) return j + 1 < words.length ? { word: words[j + 1]!, from: 0, next: j + 2 } : undefined;
  return text.startsWith(`${name}=`) ? { word: words[j]!, from: name.length + 1, next: j + 1 } : undefined;
}

/**
 * Environment variables whose value is a command line that a program runs: git(1)'s
 * GIT_SSH_COMMAND ("interpreted by the shell, which allows additional arguments to be
 * included"), GIT_PROXY_COMMAND, GIT_EDITOR, GIT_SEQUENCE_EDITOR and GIT_PAGER
 * (https://git-scm.com/docs/git#_environment_variables), and rsync(1)'s RSYNC_RSH (the remote
 * shell with its options, as `-e`).
 */
const COMMAND_VARIABLES = ['GIT_SSH_COMMAND', 'GIT_PROXY_COMMAND', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'GIT_PAGER', 'RSYNC_RSH'];

/** The edits in `NAME=value` (`word`) when NAME is one of {@link COMMAND_VARIABLES}: the value read as a command line. */
function maskAssignment(word: Word, edits: Edit[], depth: number): void {
  const equals = word.text.indexOf('=');
  if (COMMAND_VARIABLES.includes(word.text.slice(0, equals))) maskScript(word, edits, depth, equals + 1);
}

/**
 * Index of the command env(1) (`words[i]`) runs, adding the edits in the command-holding
 * variables it sets; coreutils env(1),
 * https://www.gnu.org/software/coreutils/manual/html_node/env-invocation.html: `env [OPTION]…
 * [-] [NAME=VALUE]… [COMMAND [ARG]…]`, where `-S, --split-string=S` splits S into words that take
 * its place among env's arguments (options, assignments, the command and its first arguments:
 * `env -S'-i A=1 mysql -pX' db`). Those words are read with the rest as env's own, and the
 * whole is done here (words.length returned).
 */
function envCommand(words: readonly Word[], i: number, edits: Edit[], depth: number): number {
  const valued = wrapperRules().get('env')!.valued;
  let j = i + 1;
  while (j < words.length) {
    const text = words[j]!.text;
    if (text === '--') return j + 1;
    if (isAssignment(text)) {
      maskAssignment(words[j]!, edits, depth);
      j++;
      continue;
    }
    if (text === '-') {
      j++;
      continue;
    }
    if (!text.startsWith('-')) return j;
    const split = shortValue(words, j, 'S', valued) ?? longValue(words, j, '--split-string');
    if (split && depth < MAX_DEPTH) {
      const spliced = [words[i]!, ...innerWords(split.word, split.from).flat(), ...words.slice(split.next)];
      maskCommand(spliced, 0, edits, depth + 1);
      return words.length;
    }
    j += takesNext(text, valued) ? 2 : 1;
  }
  return j;
}

/** Programs that run a command of their own grammar, each with the reader of its words (`words[i]` names it). */
type Follower = (words: readonly Word[], i: number, edits: Edit[], depth: number) => void;
let followerRules: ReadonlyMap<string, Follower> | undefined;
function followers(): ReadonlyMap<string, Follower> {
  return (followerRules ??= new Map<string, Follower>([
    ['ssh', maskRemoteCommand],
    ['scp', (words, i, edits, depth) => void sshOptionsAll(words, i, SCP_VALUED, edits, depth)],
    ['sftp', (words, i, edits, depth) => void sshOptionsAll(words, i, SFTP_VALUED, edits, depth)],
    ['watch', maskWatch],
    ['su', maskSu],
    ['runuser', maskSu],
    ['flock', maskFlock],
    ['find', maskFind],
    ['export', maskExport],
  ]));
}

/** scp(1)'s options that take a value, https://man.openbsd.org/scp.1. */
const SCP_VALUED = ['-c', '-D', '-F', '-i', '-J', '-l', '-o', '-P', '-S', '-X'];
/** sftp(1)'s, https://man.openbsd.org/sftp.1. */
const SFTP_VALUED = ['-B', '-b', '-c', '-D', '-F', '-i', '-J', '-l', '-o', '-P', '-R', '-S', '-X'];

/** The edits in scp's or sftp's `-o` options, wherever among its words (their operands are files and hosts). */
function sshOptionsAll(words: readonly Word[], i: number, valued: readonly string[], edits: Edit[], depth: number): void {
  for (let j = i + 1; j < words.length; j = sshOptions(words, j, valued, edits, depth) + 1) if (words[j]!.text === '--') return;
}

/**
 * procps watch(1), https://man7.org/linux/man-pages/man1/watch.1.html: `watch [options]
 * command`; options end at the command (`-n, --interval secs` and `-q, --equexit cycles` take a
 * value; `-d`'s is attached only). The command's words are joined with spaces and given to `sh
 * -c` ("you may need to use extra quoting"), or with `-x, --exec` run as they are.
 */
function maskWatch(words: readonly Word[], i: number, edits: Edit[], depth: number): void {
  const valued = ['-n', '-q', '--interval', '--equexit'];
  let exec = false;
  let j = i + 1;
  while (j < words.length) {
    const text = words[j]!.text;
    if (text === '--') {
      j++;
      break;
    }
    if (!text.startsWith('-') || text === '-') break;
    if (text === '--exec' || hasFlag(text, 'x', valued)) exec = true;
    j += takesNext(text, valued) ? 2 : 1;
  }
  if (j >= words.length) return;
  if (exec) maskCommand(words, j, edits, depth);
  else maskJoinedCommand(words, j, edits, depth);
}

/** Whether getopt option word `text` holds flag `letter` (`-tx`), before any letter of `valued`. */
function hasFlag(text: string, letter: string, valued: readonly string[]): boolean {
  if (text.length < 2 || text[0] !== '-' || text[1] === '-') return false;
  for (let k = 1; k < text.length; k++) {
    if (text[k] === letter) return true;
    if (valued.includes(`-${text[k]}`)) return false;
  }
  return false;
}

/**
 * util-linux su(1) and runuser(1), https://man7.org/linux/man-pages/man1/su.1.html: `-c,
 * --command=command` ("Pass command to the shell with the -c option") and `-C,
 * --session-command=command`; options may follow the user (`su - postgres -c '…'`); `-g`, `-G`,
 * `-s`, `-w` take a value. runuser(1), https://man7.org/linux/man-pages/man1/runuser.1.html,
 * takes the same, and with `-u user` runs a command of its own: `runuser -u user [[--] command
 * [argument...]]`.
 */
function maskSu(words: readonly Word[], i: number, edits: Edit[], depth: number): void {
  const valued = ['-c', '-C', '-g', '-G', '-s', '-u', '-w', '--command', '--session-command', '--group', '--supp-group', '--shell', '--user', '--whitelist-environment'];
  const runuser = programName(words[i]!.text) === 'runuser';
  let user = false;
  for (let j = i + 1; j < words.length; j++) {
    const text = words[j]!.text;
    if (runuser && user && (text === '--' || !text.startsWith('-'))) {
      maskCommand(words, text === '--' ? j + 1 : j, edits, depth);
      return;
    }
    if (text === '--') return;
    if (!text.startsWith('-')) continue;
    if (runuser && (text === '--user' || text.startsWith('--user=') || shortValue(words, j, 'u', valued))) user = true;
    const script = shortValue(words, j, 'c', valued) ?? shortValue(words, j, 'C', valued) ?? longValue(words, j, '--command') ?? longValue(words, j, '--session-command');
    if (script) {
      maskScript(script.word, edits, depth, script.from);
      j = script.next - 1;
    } else if (takesNext(text, valued)) j++;
  }
}

/**
 * util-linux flock(1), https://man7.org/linux/man-pages/man1/flock.1.html: `flock [options]
 * file|directory command [arguments]` (run as they are) or `flock [options] file|directory -c
 * command` (one command line, run by the shell); `-w, --timeout, --wait` and `-E,
 * --conflict-exit-code` take a value.
 */
function maskFlock(words: readonly Word[], i: number, edits: Edit[], depth: number): void {
  let j = skipOptions(words, i + 1, ['-w', '-E', '--wait', '--timeout', '--conflict-exit-code']);
  if (j < words.length && words[j]!.text === '--') j++;
  const command = j + 1; // after the file or directory
  if (command >= words.length) return;
  const text = words[command]!.text;
  if (text === '-c' || text === '--command') {
    if (command + 1 < words.length) maskScript(words[command + 1]!, edits, depth);
  } else maskCommand(words, command, edits, depth);
}

/**
 * GNU findutils find(1), https://man7.org/linux/man-pages/man1/find.1.html: the actions
 * `-exec command ;`, `-exec command {} +`, `-execdir` (the same), `-ok command ;` and `-okdir`
 * run `command` with its words as they are, up to the `;` (or a `+` right after `{}`). The
 * expression is walked primary by primary, so the argument of a test (`-name -exec`) is not
 * read as one: the primaries that take an argument are listed below (`-fprintf` two).
 */
function maskFind(words: readonly Word[], i: number, edits: Edit[], depth: number): void {
  const runs = ['-exec', '-execdir', '-ok', '-okdir'];
  const valued = ['-D', '-O', '-amin', '-anewer', '-atime', '-cmin', '-cnewer', '-context', '-ctime', '-files0-from', '-fls', '-fprint', '-fprint0', '-fstype', '-gid', '-group', '-ilname', '-iname', '-inum', '-ipath', '-iregex', '-iwholename', '-links', '-lname', '-maxdepth', '-mindepth', '-mmin', '-mtime', '-name', '-newer', '-path', '-perm', '-printf', '-regex', '-regextype', '-samefile', '-size', '-type', '-uid', '-used', '-user', '-wholename', '-xtype'];
  let j = i + 1;
  while (j < words.length) {
    const text = words[j]!.text;
    if (runs.includes(text)) {
      const plus = text.startsWith('-exec');
      let end = j + 1;
      while (end < words.length && words[end]!.text !== ';' && !(plus && words[end]!.text === '+' && words[end - 1]!.text === '{}')) end++;
      maskCommand(words.slice(j + 1, end), 0, edits, depth);
      j = end + 1;
    } else if (text === '-fprintf') j += 3;
    // `-newerXY reference` (X and Y each one of a B c m t).
    else j += valued.includes(text) || (text.length === 8 && text.startsWith('-newer')) ? 2 : 1;
  }
}

/** The shell's `export NAME=value …` (and `export -p`): the edits in its command-holding variables. */
function maskExport(words: readonly Word[], i: number, edits: Edit[], depth: number): void {
  for (let j = i + 1; j < words.length; j++) if (isAssignment(words[j]!.text)) maskAssignment(words[j]!, edits, depth);
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
