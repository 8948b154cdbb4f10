/**
 * The one redaction of command text and argv that users and agents write (`control run`'s
 * command, a guarded tool call, `wrap`'s agent command line, a hook's tool input summary): every
 * place cordon writes such a command to a log, a record file or a note on the terminal passes it
 * through here, so a secret typed on a command line is kept as `***` ("secrets never in argv,
 * logs or printed URLs"). URLs cordon itself handles go through `url.ts`, which shares the
 * secret query parameter names below.
 *
 * Only the secret part is replaced: the header name, flag name, variable name, URL host and a
 * token's public prefix stay, so a record still says what ran. A value that is a shell reference
 * (`$TOKEN`, `"${{ secrets.X }}"`) is not a secret and stays. The expressions are built once, on
 * first use; text that cannot hold a secret (short, or without any of `= : @ _ -` and the token
 * prefixes) is returned without running them.
 *
 * Single-letter flags are secrets only for the program that defines them (curl's `-u user:pass`,
 * mysql's `-ppass`; docker run's `-u 1000:1000` is a uid): `redact-programs.ts` keeps a table of
 * programs and their credential options, applied to the options of those programs' commands
 * (also after `sudo`, `env X=1`, `timeout 5`, `nice -n 5`, in `docker exec c …`, `kubectl exec
 * pod -- …`, `docker run IMAGE …`, `docker compose run SERVICE …`, `watch`, `su -c`, `flock`,
 * `find -exec`, `env -S`, `GIT_SSH_COMMAND=…`, `ssh -o ProxyCommand=…`, `git -c
 * core.sshCommand=…`, `git rebase --exec`, `rsync -e`, pipelines, `bash -c '…'` and `ssh host
 * '…'`), scanning the text only when one of their names occurs in it.
 */

import { MASK, maskedUserinfo } from './mask.js';
import { programMay, redactProgramArgv, redactProgramText } from './redact-programs.js';
import { namesSecretInText, secretNameOptions } from './redact/secret-names.js';
import { isSecretName } from './redact/variable-names.js';

export { MASK } from './mask.js';

/**
 * Names of URL query parameters that carry a credential (libpq's `password`, `sslpassword`,
 * `sslkey`; tokens), one regular-expression alternation; `url.ts` tests parsed URLs against the
 * same names.
 */
export const SECRET_PARAM_NAMES = 'password|passwd|pwd|sslpassword|sslkey|token|access_token|api_key|apikey|key|secret';

/**
 * A long option whose value is a secret: `--password`, `--passwd`, `--token`, `--secret`,
 * `--api-key`/`--apikey`, `--access-key`, `--secret-key`, `--private-key`, `--credentials`, also
 * with a prefix (`--db-password`, `--auth-token`, `--client-secret`). Boolean look-alikes are not
 * (`--no-password`, `--with-token` (gh), `--ask-password` …), nor names that go on (`--token-file`,
 * `--password-stdin`). Single-letter flags (`-p` of mysql, `-u user:pass` of curl) are not
 * matched here: too many commands give them other meanings (`docker run -u 1000:1000`); the
 * programs whose manual gives them a secret are `redact-programs.ts`'s table.
 */
const FLAG_NAME = String.raw`--(?!(?:no|with|without|use|ask|prompt|skip|require|read)[-_])(?:[a-z0-9]+[-_])*(?:password|passwd|token|secret|api[-_]?key|access[-_]?key|secret[-_]?key|private[-_]?key|credentials?)`;


/**
 * One shell word as a value: single-quoted, double-quoted (backslash escapes), or unquoted up to
 * white space, a quote or a shell operator. In an argv element with no shell around it the same
 * grammar ends at the element's end.
 */
const WORD = String.raw`'[^']*'?|"(?:[^"\\]|\\[\s\S])*"?|[^\s'"\x60;|&<>()]+`;

/**
 * IANA HTTP Authentication Scheme Registry names (and `Token`, GitHub's; `Bot`, Discord's;
 * `ApiKey`, `Key`): the scheme stays, the credentials after it go. Schemes whose credentials are
 * a list of parameters (Digest, AWS Signature Version 4, OAuth 1.0) lose everything up to the end
 * of the quoted string or line.
 */
const TOKEN_SCHEMES = 'basic|bearer|token|bot|negotiate|ntlm|dpop|gnap|hoba|mutual|privatetoken|scram-sha-1|scram-sha-256|vapid|apikey|key';
const PARAM_SCHEMES = 'digest|aws4-hmac-sha256|oauth|signature';

/**
 * A rule: a cheap test of the lower-cased text that must pass before the expression is built and
 * run (V8 compiles an expression on its first run: about 0.1 ms and a few page faults each, which
 * a command that cannot match never pays), the expression's maker, and its replacement.
 */
type Rule = readonly [(lower: string) => boolean, () => RegExp, (match: string, ...groups: string[]) => string];

/** Whether lower-cased text holds a word every secret name has (flags, `NAME=`, JSON members, headers). */
const secretWord = (l: string): boolean => l.includes('pass') || l.includes('token') || l.includes('secret') || l.includes('key') || l.includes('credential');

/** Whether lower-cased text may hold a secret variable name ({@link isSecretName}): `secretWord`'s words, `pwd` and `auth`. */
const secretNameWord = (l: string): boolean => secretWord(l) || l.includes('pwd') || l.includes('auth');

/** Whether some token shape may start in lower-cased text (substring tests: no expression to compile for an ordinary command). */
const SHAPE_STARTS = ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'xoxa-', 'xoxb-', 'xoxp-', 'xoxr-', 'sk-', 'sk_live_', 'sk_test_', 'rk_live_', 'rk_test_', 'akia', 'asia', 'npm_', 'aiza', 'eyj'];
const GITLAB = /gl[a-z]{2,6}-/;
const shapeMay = (l: string): boolean => SHAPE_STARTS.some((start) => l.includes(start)) || (l.includes('gl') && GITLAB.test(l));

let rules: readonly Rule[] | undefined;
/** Each rule's expression, once built. */
const built: Array<RegExp | undefined> = [];

/** The rules in the order they run; each keeps its text's shape and is idempotent on its own output. */
function compiled(): readonly Rule[] {
  return (rules ??= [
    // PEM private keys (RFC 7468 "Textual Encodings of PKIX …"): the body between the lines; a
    // block cut off before its END line loses the rest.
    [(l) => l.includes('private key-----'), () => /(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)(?:(?!\*\*\*-----)[\s\S])*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, (_m, begin: string, end: string) => `${begin}${MASK}${end}`],
    // Token shapes anywhere in a word, their public prefix kept (first, so that what the rules
    // below mask cannot put a token next to something they would read differently):
    //   GitHub "About authentication to GitHub" (token formats: ghp_ gho_ ghu_ ghs_ ghr_, github_pat_);
    //   GitLab "Token overview" (prefixes glpat- gloas- gldt- glrt- glcbt- glptt- glft- glimt- glagent- glsoat- glffct-);
    //   Slack "Token types" (xoxb- bot, xoxp- user, xoxa- app, xoxr- refresh);
    //   OpenAI API keys (sk-, sk-proj-) and Anthropic's (sk-ant-): 32+ characters with a digit;
    //   Stripe "API keys" (sk_live_, sk_test_, restricted rk_live_, rk_test_);
    //   AWS IAM "Unique identifiers" (AKIA long-term, ASIA temporary access key IDs: 16 more uppercase/digits);
    //   npm "About access tokens" (npm_ + 36);
    //   Google Cloud "API keys" (AIza + 35);
    //   JWT (RFC 7519 §3, a JWS compact serialisation: base64url header and payload, both JSON objects, so `eyJ`).
    [
      shapeMay,
      () => /(?<![A-Za-z0-9])(?:(gh[pousr]_|github_pat_)[A-Za-z0-9_]{30,}|(gl(?:pat|oas|dt|rt|cbt|ptt|ft|imt|agent|soat|ffct)-)[\w-]{20,}|(xox[abpr]-)[A-Za-z0-9-]{10,}|(sk-(?:ant-)?)(?=[\w-]*\d)[\w-]{32,}|((?:sk|rk)_(?:live|test)_)[A-Za-z0-9]{10,}|(A[KS]IA)[A-Z0-9]{16}(?![A-Za-z0-9])|(npm_)[A-Za-z0-9]{36}(?![A-Za-z0-9])|(AIza)[\w-]{35,}|eyJ[\w-]{4,}\.eyJ[\w-]{4,}\.[\w-]*)/g,
      (_m, ...groups: string[]) => `${groups.slice(0, 8).find((g) => g !== undefined) ?? ''}${MASK}`,
    ],
    // HTTP Authorization and Proxy-Authorization (RFC 9110 §11.6.2, §11.7.2): `credentials = auth-scheme
    // [ 1*SP ( token68 / #auth-param ) ]`; also as a JSON or Python key (`'Authorization': 'Bearer x'`).
    [
      (l) => l.includes('authorization'),
      () => new RegExp(String.raw`(?<![\w/-])((?:proxy-)?authorization["']?[ \t]*:[ \t]*["']?)(?:((?:${PARAM_SCHEMES})[ \t]+)([^'\r\n]+)|((?:${TOKEN_SCHEMES})[ \t]+)?([^\s'"]+))`, 'gi'),
      (m, head: string, paramScheme?: string, params?: string, scheme?: string, token?: string) =>
        paramScheme !== undefined ? `${head}${paramScheme}${masked(params!)}` : `${head}${scheme ?? ''}${masked(token!)}`,
    ],
    // Cookie (RFC 6265 §5.4): the whole value, up to the quote or line end.
    [(l) => l.includes('cookie'), () => /(?<![\w/-])(cookie["']?[ \t]*:[ \t]*["']?)([^'"\r\n]+)/gi, (_m, head: string, value: string) => `${head}${masked(value)}`],
    // Other credential headers, `Name: value` with a space as they are written: `*-Token`
    // (GitLab's `Private-Token`, `X-Vault-Token`), `*-Secret`, `*-Api-Key`; also YAML's
    // `refresh_token: x`. Without the space `my-secret:latest` is an image name.
    [
      (l) => l.includes(':') && secretWord(l),
      () => /(?<![\w/-])((?:[\w-]*[-_](?:token|secret)|(?:[\w-]*[-_])?api[-_]?key)["']?[ \t]*:[ \t]+["']?)([^\s'"]+)/gi,
      (_m, head: string, value: string) => `${head}${masked(value)}`,
    ],
    // URL user information (RFC 3986 §3.2.1, "user:password" is deprecated but still sent): all
    // of it, as every URL cordon shows (mask.ts `maskedUserinfo`); the host stays. A password that
    // is a reference (`$PASS`) leaves it as it is.
    [
      (l) => l.includes('://'),
      () => /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:'"]*):([^\s/?#'"]+)@/gi,
      (m, scheme: string, user: string, password: string) => (masked(password) === password ? m : `${scheme}${maskedUserinfo(`${user}:${password}`)}@`),
    ],
    // Webhook URLs whose path is the credential (anyone holding one may post): Slack incoming
    // webhooks, workflow and trigger URLs (`hooks.slack.com/services/T…/B…/<secret>`: the last
    // part), Discord's (`discord.com/api/webhooks/<id>/<token>`: the token), Microsoft Teams /
    // Office 365 connectors (`….webhook.office.com/webhookb2/…`: all of the path). Host and the
    // public parts stay, as for the other URLs.
    [
      (l) => l.includes('hooks.slack') || l.includes('/webhook'),
      () => new RegExp(String.raw`\b(https?://(?:hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/(?:${URL_PART}/)+|(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d+/|(?:[\w-]+\.)*(?:webhook\.office|outlook\.office(?:365)?)\.com/webhook(?:b2)?/))(${URL_PART}(?:/${URL_PART})*)`, 'gi'),
      (_m, head: string, path: string) => `${head}${webhookPath(head, path)}`,
    ],
    // Secret query parameters (url.ts's names): `?token=x`, `&api_key=x`.
    [(l) => l.includes('=') && (l.includes('?') || l.includes('&')) && (secretWord(l) || l.includes('pwd')), () => new RegExp(String.raw`([?&](?:${SECRET_PARAM_NAMES})=)([^&#\s'"\x60;|<>()]+)`, 'gi'), (_m, head: string, value: string) => `${head}${masked(value)}`],
    // JSON members (RFC 8259) with a secret name: `{"password": "x"}` in a curl -d.
    [(l) => l.includes('"') && l.includes(':') && secretNameWord(l), () => /("([\w.-]+)"[ \t]*:[ \t]*")((?:[^"\\\n]|\\.)*)"/g, (m, head: string, name: string, value: string) => (isSecretName(name) ? `${head}${masked(value)}"` : m)],
    // Long options: `--password=x`, `--token x`, `--api-key 'x y'` (a value that starts with `-`
    // is the next option: `psql --password -h db` asks for it).
    // podman's `run --secret NAME` names a stored secret, no value: it stays (redact-programs.ts).
    [
      (l) => l.includes('--') && secretWord(l),
      () => new RegExp(String.raw`(?<![\w-])(${FLAG_NAME})(=|[ \t]+(?!-))(${WORD})`, 'gi'),
      (m, flag: string, sep: string, value: string, offset: unknown, whole: unknown) =>
        flag.length === 8 && flag.toLowerCase() === '--secret' && namesSecretInText(whole as string, offset as number) ? m : `${flag}${sep}${maskedWord(value)}`,
    ],
    // `NAME=value` (POSIX shell assignments, env files, `key=value` arguments) with a secret name.
    // The value of any other name is read again, since it may hold assignments of its own
    // (`git -c core.sshCommand='TOKEN=x ssh'`, `GIT_SSH_COMMAND='TOKEN=x ssh'`).
    [(l) => l.includes('=') && secretNameWord(l), () => new RegExp(ASSIGNMENT, 'g'), (_m, name: string, value: string) => (isSecretName(name) ? `${name}=${maskedWord(value)}` : `${name}=${assignmentsIn(value)}`)],
  ]);
}

/**
 * The rules for text cut short ({@link RedactOptions.cut}): a secret the cut runs through, which
 * the rules above tell only by what follows it, is taken to run to the end. The others already
 * take any start of their value: PEM to the end, header and cookie values, query values, long
 * options, `NAME=value` and the program table (an unclosed quote closes at the end). These need
 * what follows: a token shape its length (`ghp_` and 30 more) or the end of its word (AWS, npm),
 * a JWT its second dot, a URL password its `@`, a JSON member its closing quote; each is masked
 * here from its public prefix, if any, to the end of the text.
 */
const CUT_RULES: readonly (readonly [RegExp, (match: string, ...groups: string[]) => string])[] = [
  [/(?<![A-Za-z0-9])(gh[pousr]_|github_pat_|gl(?:pat|oas|dt|rt|cbt|ptt|ft|imt|agent|soat|ffct)-|xox[abpr]-|sk-(?:ant-)?|(?:sk|rk)_(?:live|test)_|A[KS]IA|npm_|AIza)[\w-]+$/, (_m, prefix: string) => `${prefix}${MASK}`],
  [/(?<![A-Za-z0-9])eyJ[\w-]*(?:\.[\w-]*)*$/, () => MASK],
  [/\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:'"]*):([^\s/?#'"]+)$/i, (m, scheme: string, user: string, password: string) => (masked(password) === password ? m : `${scheme}${maskedUserinfo(`${user}:${password}`)}`)],
  [/("([\w.-]+)"[ \t]*:[ \t]*")((?:[^"\\\n]|\\[\s\S])*\\?)$/, (m, head: string, name: string, value: string) => (isSecretName(name) ? `${head}${masked(value)}` : m)],
];

/** One part of a URL path: up to a `/`, `?`, `#`, white space, a quote or a shell operator. */
const URL_PART = String.raw`[^/?#\s'"\x60;|&<>()]+`;

/**
 * A webhook URL's path after `head` with its secret masked: for Teams/Office all of it (its parts
 * together are the credential); for Slack and Discord the first part (Slack's last, the head takes
 * the others), what follows it (Discord's `/slack`, `/github`) kept.
 */
function webhookPath(head: string, path: string): string {
  if (/office/i.test(head)) return masked(path);
  const slash = path.indexOf('/');
  return slash < 0 ? masked(path) : `${masked(path.slice(0, slash))}${path.slice(slash)}`;
}

/** `NAME=value`, the value one {@link WORD}. */
const ASSIGNMENT = String.raw`(?<![\w.$-])([A-Za-z_][\w.-]*)=(${WORD})`;

let innerAssignment: RegExp | undefined;

/**
 * The assignments with a secret name inside a value that was itself assigned (`TOKEN=x` in
 * `core.sshCommand='TOKEN=x ssh'`), masked: the value after its opening quote, read as the rule
 * reads any text, so a value that holds none comes back as it was.
 */
function assignmentsIn(value: string): string {
  if (!value.includes('=')) return value;
  const at = value[0] === "'" || value[0] === '"' ? 1 : 0;
  const rest = value.slice(at).replace((innerAssignment ??= new RegExp(ASSIGNMENT, 'g')), (_m, name: string, inner: string) => (isSecretName(name) ? `${name}=${maskedWord(inner)}` : `${name}=${assignmentsIn(inner)}`));
  return value.slice(0, at) + rest;
}

/** How {@link redactText} reads its text. */
export interface RedactOptions {
  /**
   * The text is the start of a longer one, cut where it ends (a window of a long command): a
   * secret it ends inside is masked to the end even where the text is too short to tell it by
   * what follows (see {@link CUT_RULES}). Off: the end is the text's own.
   */
  readonly cut?: boolean;
}

/** The shortest text a rule can change (`a://b:c@`, `?key=x`, `token=x`). */
const SHORTEST = 6;

/** `value` as `***`, unless it is empty, a shell reference (`$X`, `${X}`) or a line continuation. */
function masked(value: string): string {
  return value === '' || value === '\\' || value.startsWith('$') ? value : MASK;
}

/** A shell word's value masked inside its quotes (`'***'`), so the line keeps its shape. */
function maskedWord(word: string): string {
  const quote = word[0];
  if (quote !== "'" && quote !== '"') return masked(word);
  const closed = word.length > 1 && word.endsWith(quote);
  const inner = word.slice(1, closed ? -1 : undefined);
  return inner === '' || inner.startsWith('$') ? word : `${quote}${MASK}${closed ? quote : ''}`;
}

/**
 * `text` (a command line as typed or as an agent sent it, one argv element, a log message) with
 * every secret replaced by `***`:
 *
 * - `Authorization:` / `Proxy-Authorization:` header values after the scheme (`Bearer ***`,
 *   `Basic ***`, `token ***`; RFC 9110), `Cookie:`, `*-Token:`, `*-Api-Key:` header values;
 * - URL user information with a password, user name and all (`https://***@host`; RFC 3986; the
 *   one form, mask.ts `maskedUserinfo`), and secret query parameters (`?token=***`, the names of
 *   `url.ts`);
 * - long options `--password=***`, `--token ***`, `--api-key '***'`, `--secret`, `--db-password`
 *   … (not podman's `run --secret NAME`, a stored secret's name);
 * - the credential options of the programs in `redact-programs.ts`'s table, and only in their
 *   commands: curl `-u admin:***` / `--user` / `-U` / `--proxy-user` / `--oauth2-bearer ***`,
 *   mysql/mariadb clients `-p***`, `sshpass -p ***`, `redis-cli -a ***` / `--pass ***`, openssl
 *   `-pass pass:***` / `-passin` / `-passout` / `-k ***`, OpenLDAP `-w ***`, `docker login -p ***`
 *   / `podman login -p ***` (also after `--config DIR`), smbclient `-U user%***`, mongosh `-p
 *   ***`, sqlcmd `-P ***`, ssh-keygen `-P ***` / `-N ***`, zip and unzip `-P ***`, 7-Zip
 *   `-p***`, and `htpasswd -b FILE USER ***` / `-nb USER ***` (an operand,
 *   `redact/grammars/htpasswd.ts`); also after `sudo`, `env`, `exec`, `command`, `time`, `nohup`, `timeout`, `nice`,
 *   `ionice`, `stdbuf`, `xargs`, `doas` (their options with values skipped) and `NAME=value`, as
 *   the command of `docker exec`, `docker compose exec`, `podman exec`, `kubectl exec`, `docker
 *   run`, `podman run` and `docker compose run`, `watch`, `su -c`/`runuser`, `flock`, find's
 *   `-exec`/`-execdir`/`-ok`/`-okdir`, `env -S`, `git rebase --exec`, in the command lines of
 *   `GIT_SSH_COMMAND`-like variables, of git's `-c core.sshCommand=…`-like settings, of rsync's
 *   `-e`/`--rsync-path` and of ssh's `-o ProxyCommand=…`, in pipelines, lists, `sh -c '…'` and
 *   ssh's remote command (`docker run -u 1000:1000`, `ssh -p 2222`, `mysql -P 3306`, `curl -k`,
 *   `zip -r`, `timeout 5 ls -p`, `find -name -exec` stay);
 * - `NAME=***` where NAME says it holds a secret (`redact/variable-names.ts` `isSecretName`: it
 *   ends in TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, API_KEY …, its last part is KEY
 *   (`OPENAI_KEY`), a part of it is PASS, PWD, AUTH, SECRET, TOKEN, CREDENTIAL … (`MYSQL_PWD`,
 *   `DB_PASS`, `REDISCLI_AUTH`), or it is `SSHPASS`; not `PWD`, `COMPASS`, `MONKEY`, `AUTHOR`,
 *   `TOKEN_FILE`), any case, also inside another assignment's value
 *   (`core.sshCommand='TOKEN=*** ssh'`), and such JSON members (`"password":"***"`);
 * - the secret path of webhook URLs: Slack `hooks.slack.com/services/T…/B…/***` (and
 *   `workflows`, `triggers`), Discord `discord.com/api/webhooks/ID/***`, Teams/Office
 *   `….webhook.office.com/webhookb2/***`;
 * - token shapes anywhere in a word, prefix kept: GitHub `ghp_***` (gho_, ghu_, ghs_, ghr_,
 *   github_pat_), GitLab `glpat-***`, Slack `xoxb-***`, OpenAI/Anthropic `sk-***`/`sk-ant-***`,
 *   Stripe `sk_live_***`, AWS `AKIA***`/`ASIA***`, npm `npm_***`, Google `AIza***`, JWTs (`***`),
 *   PEM private key bodies.
 *
 * Quotes around a value stay (`'***'`); references (`$TOKEN`) stay. Idempotent, and text without
 * a secret (paths, git SHAs, UUIDs, ordinary flags) comes back unchanged. With `options.cut` the
 * text is a cut start of a longer one, and no part of a secret it ends inside is left
 * ({@link RedactOptions}).
 */
export function redactText(text: string, options: RedactOptions = {}): string {
  if (text.length < SHORTEST && !options.cut) return text;
  // A mask can take away what kept an earlier rule from matching (`https://u:TOKEN=?|@h`: once
  // `?` is `***` the URL has a password), so the rules run again until nothing changes: once for
  // text without a secret, twice for most with one.
  let out = text;
  for (let round = 0; round < 8; round++) {
    let next = out;
    const lower = out.toLowerCase();
    const all = compiled();
    for (let i = 0; i < all.length; i++) {
      const [may, make, replace] = all[i]!;
      if (may(lower)) next = next.replace((built[i] ??= make()), replace as (m: string, ...rest: unknown[]) => string);
    }
    // The program table scans words, not patterns: nothing to compile, and only for text naming one.
    if (programMay(lower)) next = redactProgramText(next);
    if (options.cut) for (const [expression, replace] of CUT_RULES) next = next.replace(expression, replace as (m: string, ...rest: unknown[]) => string);
    if (next === out) break;
    out = next;
  }
  return out;
}

let valueFlag: RegExp | undefined;

/**
 * `argv` (a command and its arguments, one string each) with its secrets as `***`: each element
 * through {@link redactText}, the element after a secret long option given on its own
 * (`--password`, `hunter2` → `--password`, `***`; not when it starts with `-` or `$`), and the
 * credential values of the programs in `redact-programs.ts`'s table read as that program's
 * arguments (`curl`, `-u`, `admin:pw` → `curl`, `-u`, `admin:***`; `mysql`, `-ppw` → `mysql`,
 * `-p***`; also after `sudo`, `env X=1` …). Same number of elements, in the same order; a new
 * array.
 */
export function redactArgv(argv: readonly string[]): string[] {
  const source = redactProgramArgv(argv);
  const out = new Array<string>(source.length);
  // podman's `run --secret NAME`: a name, not a value (redact-programs.ts `secretNameOptions`).
  const names = source.some((a) => a.startsWith('--secret')) ? secretNameOptions(source) : undefined;
  for (let i = 0; i < source.length; i++) {
    const arg = source[i]!;
    const prev = i > 0 ? source[i - 1]! : '';
    if (names?.has(i) && arg.startsWith('--secret=')) out[i] = `--secret=${redactText(arg.slice(9))}`;
    else if (names?.has(i - 1)) out[i] = redactText(arg);
    else if (prev.length > 2 && prev.charCodeAt(0) === 45 && prev.charCodeAt(1) === 45 && (valueFlag ??= new RegExp(`^${FLAG_NAME}$`, 'i')).test(prev) && !arg.startsWith('-')) {
      out[i] = masked(arg);
    } else out[i] = redactText(arg);
  }
  return out;
}
