import type { WriteKind, WriteTarget } from '@cordon/plugin-api';
import { patchHeaders, patchText, type PatchOperation } from './patch.js';

/** The names Codex runs its patch tool under from a shell (`APPLY_PATCH_COMMANDS` of `codex-rs/apply-patch`). */
const PATCH_COMMANDS = ['apply_patch', 'applypatch'] as const;

/** The shell tools as Codex's hooks name them (every one arrives as `Bash`; the others for older builds). */
const SHELL_TOOLS = new Set(['Bash', 'exec_command', 'shell', 'shell_command', 'local_shell']);

/**
 * The files a Codex call changes (`Dialect.writeTargets`): every path of an `apply_patch` call's
 * patch (added, updated, deleted, and both ends of a move; `patch.ts`) with how Codex changes it
 * ({@link patchWriteTargets}), and of a shell call that runs `apply_patch` itself
 * ({@link shellPatchTargets}); `undefined` for every other call, decided from the tool name and,
 * for a shell call, whether its command names `apply_patch` at all. Other shell commands are not
 * parsed (the final `cordon check` audits what they did).
 */
export function writeTargets(toolName: string, toolInput: Readonly<Record<string, unknown>>): readonly WriteTarget[] | undefined {
  if (toolName === 'apply_patch') return patchWriteTargets(patchText(toolInput));
  if (SHELL_TOOLS.has(toolName)) return shellPatchTargets(toolInput.command);
  return undefined;
}

/**
 * How Codex applies each file of a patch (`apply_hunks_to_files` of `codex-rs/apply-patch/src/lib.rs`):
 * an added or updated file, and a move's destination, are written in place with `std::fs::write`
 * (`write`: through a symbolic link at the path, to where it leads); a deleted file, and a move's
 * source, are removed with `std::fs::remove_file` (`remove`: `unlink(2)`, the link itself goes).
 * Paths as {@link patchHeaders} reads them, in patch order.
 */
export function patchWriteTargets(patch: string): WriteTarget[] {
  const targets: WriteTarget[] = [];
  for (const header of patchHeaders(patch)) {
    // A move empties its source, named by the update header just before it.
    const source = targets[targets.length - 1];
    if (header.op === 'move' && source !== undefined) targets[targets.length - 1] = { path: source.path, kind: 'remove' };
    targets.push({ path: header.path, kind: KIND_OF[header.op] });
  }
  return targets;
}

const KIND_OF: Readonly<Record<PatchOperation, WriteKind>> = { add: 'write', update: 'write', move: 'write', delete: 'remove' };

/**
 * The files a shell command writes through Codex's patch tool, or undefined when it does not run
 * it. Codex takes `apply_patch <<'EOF' … EOF` and `cd <dir> && apply_patch <<'EOF' … EOF` from its
 * shell tools as an apply_patch call (`extract_apply_patch_from_bash`, `codex-rs/apply-patch/src/
 * invocation.rs`; its hooks still name the call `Bash`, seen with Codex 0.171), and puts an
 * `apply_patch` program on the shell's `PATH` for any other form. So:
 *
 * - `command` as an argument list: `["apply_patch", <patch>]`, or `[<shell>, "-c"|"-lc", <script>]`
 *   read as the script below;
 * - a script in one of Codex's two forms: the heredoc's body is read as a patch, its relative
 *   paths joined to the `cd` directory (a word, or a quoted string) as Codex joins them; text
 *   after the heredoc (not Codex's form: the shell runs it all) adds the headers it holds;
 * - any other script that names `apply_patch` or `applypatch` and holds `*** Begin Patch`:
 *   every header line in it counts, relative to the call's working directory (a best effort:
 *   `check` audits what the command did).
 */
export function shellPatchTargets(command: unknown): readonly WriteTarget[] | undefined {
  if (Array.isArray(command)) {
    if (command.length === 2 && (PATCH_COMMANDS as readonly unknown[]).includes(command[0]) && typeof command[1] === 'string') return patchWriteTargets(command[1]);
    const script = command.length >= 3 && /^-l?c$/.test(String(command[command.length - 2])) ? command[command.length - 1] : undefined;
    return typeof script === 'string' ? shellPatchTargets(script) : undefined;
  }
  if (typeof command !== 'string' || !/\b(apply_?patch)\b/.test(command)) return undefined;
  const heredoc = HEREDOC.exec(command);
  if (heredoc?.groups) {
    const { dir, delimiter, dash, rest } = heredoc.groups as Record<string, string>;
    const { body, after } = heredocBody(rest!, delimiter!, dash === '-');
    const cd = dir === undefined ? undefined : unquote(dir);
    const targets = patchWriteTargets(body).map((target) => (cd === undefined || target.path.startsWith('/') ? target : { ...target, path: `${cd}/${target.path}` }));
    // Text after the heredoc makes it a script Codex does not take: the shell runs all of it, so
    // the headers there count too (relative to the call's directory, the best effort below).
    return after.trim() === '' ? targets : [...targets, ...patchWriteTargets(after)];
  }
  return command.includes('*** Begin Patch') ? patchWriteTargets(command) : undefined;
}

/**
 * Codex's two shell forms: an optional `cd <dir> &&` (a plain word, or a quoted string without
 * expansions), then `apply_patch`/`applypatch`, a heredoc redirection and the rest of the text.
 */
const HEREDOC = /^\s*(?:cd[ \t]+(?<dir>'[^']*'|"[^"\\$`]*"|[^\s'"&|;<>()$`\\]+)[ \t]*&&[ \t]*)?(?:apply_patch|applypatch)[ \t]*<<(?<dash>-?)[ \t]*(?<quote>['"]?)(?<delimiter>[A-Za-z0-9_.-]+)\k<quote>[ \t]*\r?\n(?<rest>[\s\S]*)$/;

/**
 * A heredoc's body: the lines of `rest` up to the one that is `delimiter` (after tabs, with
 * `<<-`), or all of it; and the text after that line (empty when the heredoc runs to the end).
 */
function heredocBody(rest: string, delimiter: string, dash: boolean): { body: string; after: string } {
  const lines = rest.split('\n');
  const end = lines.findIndex((line) => (dash ? line.replace(/^\t+/, '') : line).replace(/\r$/, '') === delimiter);
  if (end === -1) return { body: rest, after: '' };
  return { body: lines.slice(0, end).join('\n'), after: lines.slice(end + 1).join('\n') };
}

function unquote(word: string): string {
  return (word.startsWith("'") && word.endsWith("'")) || (word.startsWith('"') && word.endsWith('"')) ? word.slice(1, -1) : word;
}
