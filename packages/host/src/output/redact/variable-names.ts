// Whether a variable or key name (`NAME=value`, a JSON member) says its value is a secret. Read
// by `redact.ts`'s `NAME=value` and JSON member rules.

/**
 * Names ending in one of these, glued or not, hold a secret (`GITHUB_TOKEN`, `PGPASSWORD`,
 * `db.password`, `x-api-key`, `APIKEY`, `BORG_PASSPHRASE`). `PASS`, `PWD`, `AUTH` and a bare
 * `KEY` are not here: glued they end harmless words (`COMPASS`, `BYPASS`, `OLDPWD`, `OAUTH`,
 * `MONKEY`, `TURKEY`), so they count only as whole parts ({@link SECRET_PARTS}).
 */
const SECRET_SUFFIX = /(?:token|secret|password|passwd|passphrase|api[-_]?key|access[-_]?key|secret[-_]?key|private[-_]?key|credentials?)$/i;

/**
 * Parts of a name (split at `_`, `.`, `-` and a lower-to-upper case change) that say it holds a
 * secret wherever they stand: `MYSQL_PWD`, `DB_PASS`, `REDISCLI_AUTH`, `TOKEN_SECRET_BASE`,
 * `dbPass`.
 */
const SECRET_PARTS = new Set(['pass', 'passwd', 'password', 'pwd', 'passphrase', 'secret', 'secrets', 'token', 'tokens', 'credential', 'credentials', 'auth']);

/**
 * Last parts that say the value is about a secret, not the secret (a file holding it, where to
 * send it, its kind, the program that fetches it): `TOKEN_FILE`, `OS_AUTH_URL`,
 * `AWS_ACCESS_KEY_ID`, `token_type`, `AUTH_USER`, git's `credential.helper`. A command line
 * (`diff.secret.command='mysql -p…'`) is read again as a command by `redact.ts`.
 */
const DESCRIBING_PARTS = new Set(['file', 'files', 'path', 'dir', 'url', 'uri', 'endpoint', 'host', 'port', 'type', 'method', 'mode', 'id', 'name', 'user', 'username', 'ttl', 'timeout', 'expiry', 'expires', 'expiration', 'length', 'provider', 'command', 'cmd', 'helper', 'program', 'prompt']);

/**
 * Whole names that hold a secret without saying so in a part: sshpass(1)'s `SSHPASS` (`sshpass
 * -e` reads the password from it).
 */
const WELL_KNOWN = new Set(['sshpass']);

/**
 * Whether a variable or key name says its value is a secret, any case:
 *
 * - it ends in TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, API_KEY/APIKEY, ACCESS_KEY,
 *   SECRET_KEY, PRIVATE_KEY or CREDENTIAL(S), glued or not (`GITHUB_TOKEN`, `PGPASSWORD`);
 * - its last part is KEY after another part (`OPENAI_KEY`, `ANTHROPIC_KEY`, `x-api-key`,
 *   `apiKey`; not `KEY`, `MONKEY`, `KEYBOARD`);
 * - one of its parts is PASS, PASSWD, PASSWORD, PWD, PASSPHRASE, SECRET(S), TOKEN(S),
 *   CREDENTIAL(S) or AUTH (`MYSQL_PWD`, `DB_PASS`, `REDISCLI_AUTH`), unless its last part says
 *   the value only describes one (`TOKEN_FILE`, `OS_AUTH_URL`, `AUTH_TYPE`);
 * - it is a well-known one that says neither (`SSHPASS`).
 *
 * Not `PWD` alone (the shell's working directory), `OLDPWD`, `SSH_ASKPASS`/`core.askPass` (a program), `COMPASS`, `BYPASS`, `AUTHOR`,
 * `OAUTH_CLIENT_ID`, `PATH`, `HOME`.
 */
export function isSecretName(name: string): boolean {
  if (SECRET_SUFFIX.test(name)) return true;
  const lower = name.toLowerCase();
  if (WELL_KNOWN.has(lower)) return true;
  // `SSH_ASKPASS`, `GIT_ASKPASS`, git's `core.askPass`: the program that asks, not a password.
  if (lower.includes('askpass')) return false;
  // `dbPass` → db, pass; `MYSQL_PWD` → mysql, pwd; `PGPASSWORD` stays one part.
  const parts = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[_.-]+/)
    .filter((p) => p !== '');
  if (parts.length === 0) return false;
  const last = parts[parts.length - 1]!;
  if (last === 'key' && parts.length > 1) return true;
  // The working-directory variable, not a password.
  if (parts.length === 1 && last === 'pwd') return false;
  return !DESCRIBING_PARTS.has(last) && parts.some((p) => SECRET_PARTS.has(p));
}
