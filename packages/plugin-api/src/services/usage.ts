/**
 * The host's wording of command-line mistakes lent to plugins (`api.services.usage`), so that a
 * plugin that prints its own errors words oclif's parse errors as every cordon command does.
 */
export interface UsageService {
  /**
   * One of oclif's usage errors (`error`, thrown while the command `command`, such as `cordon
   * pcodx record`, parsed its argv: a value its options refuse, a missing flag, a nonexistent flag)
   * in cordon's one line: `--role: expected one of system, user but received: "bogus"; see
   * \`cordon pcodx record --help\``; a flag's own refusal keeps its words. The host's
   * `usageMessage` (packages/host/src/cli/usage-message.ts). Not escaped for a terminal.
   */
  message(error: Error, command: string): string;
}
