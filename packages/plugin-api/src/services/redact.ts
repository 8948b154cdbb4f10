/**
 * The host's redaction of command text and argv (`api.services.redact`), so a plugin that writes a
 * command a user or an agent typed (a record file, a note on stderr) hides its secrets exactly as
 * the host does (packages/host/src/output/redact.ts; docs/control.md "Records"). The host's logger
 * (`api.log`) and its marker writer (`api.services.telemetry.appendMarker`) apply it already.
 */
export interface RedactService {
  /**
   * `text` (a command line, one argument, a message that may echo one) with every secret as `***`:
   * Authorization and other credential header values, URL passwords and secret query parameters,
   * `--password`/`--token`/`--api-key`/`--secret` values, `NAME=value` with a secret name, known
   * token shapes (GitHub, GitLab, Slack, OpenAI, Anthropic, Stripe, AWS, npm, Google, JWT, PEM
   * private keys), and the single-letter credential options of the programs that define them
   * (`curl -u admin:***`, `mysql -p***`, `sshpass -p ***`, `openssl -pass pass:***`, `ldapsearch
   * -w ***`, `docker login -p ***`, `smbclient -U user%***`, …; docs/control.md "Records").
   * Idempotent; text without a secret comes back unchanged.
   */
  command(text: string): string;
  /** `argv` with every element redacted as {@link command}, the element after `--password` (and the like) as `***`, and those programs' credential values (`curl`, `-u`, `admin:***`); same length. */
  argv(argv: readonly string[]): string[];
}
