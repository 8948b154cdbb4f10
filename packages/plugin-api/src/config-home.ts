import { isAbsolute } from 'node:path';

/** How an agent is named in the refusal of a config-home variable ({@link requireAbsoluteHome}). */
export interface HomeVariableWords {
  /** The agent as the sentence names it: `Gemini CLI`. */
  readonly agent: string;
  /** The name in "depends on where … starts" (default {@link agent}). */
  readonly starts?: string;
  /** The config file the variable locates: `settings.json`. */
  readonly file: string;
  /** What is said of a value starting with `~` (default `<agent> does not expand "~" in it`). */
  readonly tilde?: string;
}

/**
 * `value`, the non-empty value of an agent's config-home variable `name` (`CLAUDE_CONFIG_DIR`,
 * `GEMINI_CLI_HOME`, `HERMES_HOME`), when it is an absolute path. The agents take such a variable
 * as it is (no `~` expansion), so a relative value is read against the directory the agent is
 * started in and names no one config file: refused. `shown` is the value as the user wrote it,
 * quoted in the message (default `value`).
 * @throws an error with code `CORDON_BAD_INPUT` (exit 2) naming the variable, its value and what to set.
 */
export function requireAbsoluteHome(name: string, value: string, words: HomeVariableWords, shown: string = value): string {
  if (isAbsolute(value)) return value;
  const tilde = value.startsWith('~') ? ` (${words.tilde ?? `${words.agent} does not expand "~" in it`})` : '';
  const message = `${name} is ${JSON.stringify(shown)}, not an absolute path${tilde}; ${words.agent} reads it against the directory it is started in, so which ${words.file} it names depends on where ${words.starts ?? words.agent} starts. Set ${name} to an absolute path`;
  throw Object.assign(new Error(message), { code: 'CORDON_BAD_INPUT' });
}
