import { isAbsolute, resolve } from 'node:path';

/**
 * One scripted model turn. Each fake server translates the agent-neutral kinds into its agent's
 * native tool call (the agent hook docs; docs/references.md, canonical names):
 *
 * | kind | Claude Code | Codex (`codex exec`) | Gemini CLI |
 * |---|---|---|---|
 * | `shell` | `Bash {command}` | the offered shell tool (`exec_command {cmd}`, `shell_command`, `shell`) | `run_shell_command {command}` |
 * | `write` | `Write {file_path, content}` | `apply_patch` `*** Add File:` | `write_file {file_path, content}` |
 * | `read` | `Read {file_path}` | shell `cat <path>` (Codex has no read tool) | `read_file {file_path}` |
 * | `edit` | `Edit {file_path, old_string, new_string}` | `apply_patch` `*** Update File:` | `replace {file_path, old_string, new_string, instruction}` |
 * | `native` | any tool, input verbatim | any function tool, arguments verbatim | any function, args verbatim |
 * | `text` | final assistant text, `end_turn` | final `message` item | final text part |
 */
export type Step =
  | { readonly kind: 'shell'; readonly command: string; readonly description?: string }
  | { readonly kind: 'write'; readonly path: string; readonly content: string }
  | { readonly kind: 'read'; readonly path: string }
  | { readonly kind: 'edit'; readonly path: string; readonly oldString: string; readonly newString: string }
  | { readonly kind: 'native'; readonly name: string; readonly input: Readonly<Record<string, unknown>> }
  | { readonly kind: 'text'; readonly text: string };

/** Step builders, so a script reads like the session it plays. Paths should be absolute. */
export const step = {
  shell: (command: string, description = 'scripted shell call'): Step => ({ kind: 'shell', command, description }),
  write: (path: string, content: string): Step => ({ kind: 'write', path, content }),
  read: (path: string): Step => ({ kind: 'read', path }),
  edit: (path: string, oldString: string, newString: string): Step => ({ kind: 'edit', path, oldString, newString }),
  native: (name: string, input: Record<string, unknown>): Step => ({ kind: 'native', name, input }),
  text: (text: string): Step => ({ kind: 'text', text }),
};

/** Options shared by the three fake servers. */
export interface ScriptOptions {
  /** The steps, played in order; a `text` step ends the turn. */
  readonly steps: readonly Step[];
  /** Final text once the steps run out (default `Done.`). */
  readonly finalText?: string;
  /** Directory relative step paths resolve against (default: the test process's cwd). */
  readonly workdir?: string;
  /** Requests answered before the server answers 500 to everything (loop guard; default 200). */
  readonly maxRequests?: number;
  /** Requests kept in `requests` (default 100; later ones are counted, not kept). */
  readonly maxRecorded?: number;
  /** Largest request body read, in bytes (default 32 MiB; the rest of a larger body is dropped unread). */
  readonly maxBodyBytes?: number;
}

/**
 * The step to play for a request that already carries `done` tool results: the step index is
 * the number of results so far, so the script is stateless per conversation and side requests
 * (titles, routing) do not advance it. `undefined` once the script is played out.
 */
export function stepAt(options: ScriptOptions, done: number): Step | undefined {
  return options.steps[done];
}

/** Resolves a step path against the script's workdir. */
export function absPath(options: ScriptOptions, path: string): string {
  return isAbsolute(path) ? path : resolve(options.workdir ?? process.cwd(), path);
}
