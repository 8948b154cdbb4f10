/**
 * The per-agent config writer behind `cordon install-hooks` / `uninstall-hooks`. A dialect's
 * installer knows where its agent reads hooks from and what an entry looks like (the agents' hook
 * docs, docs/references.md); the host owns flags, diffs, writing, and the format-preserving
 * editors it lends through {@link InstallContext.formats}, so an installer needs no parser of
 * its own and a file that does not parse is refused by the host's editor, untouched.
 */
export interface HookInstaller {
  /** Whether the agent looks installed here (its binary on `PATH` or its config home exists); `--all` installs for these. */
  detect(ctx: InstallContext): boolean | Promise<boolean>;
  /** The changes that make the agent call `cordon hook`; idempotent (an installed file yields no change). */
  install(ctx: InstallContext): InstallPlan | Promise<InstallPlan>;
  /** The changes that remove exactly what {@link install} wrote, and nothing else. */
  uninstall(ctx: InstallContext): InstallPlan | Promise<InstallPlan>;
  /**
   * Runs after the host wrote an install plan (only with `--write`): checks the result with the
   * agent itself where it can (Codex: `codex app-server` `hooks/list`) and may return corrective
   * changes, which the host writes too.
   */
  verify?(ctx: InstallContext, written: InstallPlan): InstallPlan | Promise<InstallPlan>;
}

/** `user`: the agent's per-user config; `project`: the config inside {@link InstallContext.projectDir}. */
export type HookScope = 'user' | 'project';

/** Everything an installer gets from the host. */
export interface InstallContext {
  readonly scope: HookScope;
  /** Absolute, agent-specific pieces of the command the agent should run. */
  readonly command: HookCommand;
  /** Home directory (`HOME`) agents resolve their user config from. */
  readonly home: string;
  /** Project root for `--scope project` (default: the current directory). */
  readonly projectDir: string;
  /** Environment (`CODEX_HOME`, `HERMES_HOME`, `CLAUDE_CONFIG_DIR`, `PATH`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `--accept`: the user consents to approving the hook in the agent's own allowlist (Hermes). */
  readonly accept: boolean;
  /** Format-preserving editors lent by the host. */
  readonly formats: ConfigFormats;
  /** Edits of the agent's `hooks` map inside a document from {@link formats}, lent by the host. */
  readonly hookLists: HookListEditor;
  /** Reads a file as UTF-8; `undefined` when it does not exist. */
  readFile(path: string): string | undefined;
  /** True when `path` is an existing directory (an agent's config home, a project's `.claude/`). */
  isDirectory(path: string): boolean;
  /** Finds an executable on `env.PATH`; `undefined` when absent. */
  which(name: string): string | undefined;
}

/**
 * How an agent lays out the lists of its `hooks` map (`{ <event>: [entry, …] }`, as the
 * agents' hook docs describe): `grouped` entries are matcher groups
 * `{matcher?, hooks: [{command, …}, …]}` (Claude Code, Codex, Gemini CLI); `flat` entries are the
 * handlers `{command, …}` themselves (Cursor, Hermes).
 */
export type HookListLayout = 'grouped' | 'flat';

/** Options of {@link HookListEditor.removeCommands}. */
export interface RemoveCommandsOptions {
  readonly layout: HookListLayout;
  /**
   * Whether a handler's command is cordon's (the shapes any install wrote). The host's editor also
   * counts a command exactly equal to one of this install's `command` forms, so hooks installed with
   * `--command` are found again by an uninstall given the same `--command`.
   */
  readonly isOurs: (command: unknown) => boolean;
  /** The current cordon command (an install); absent for an uninstall. */
  readonly keep?: string;
  /** Receives one line per handler removed, in words (event, position, matcher), for dry runs and summaries. */
  readonly removed?: string[];
}

/** Edits of the `hooks` map every agent config keeps, the same for all installers. */
export interface HookListEditor {
  /**
   * Removes from `doc`'s `hooks` map every handler whose `command` `isOurs` accepts, except, per
   * event, the first one whose command equals `keep` **and whose group (grouped) or entry (flat)
   * covers every tool** (no matcher, `""` or `"*"`): a copy inside a narrower group (a user's
   * `"Bash"` group) is removed instead, so after the install appends what is missing every event
   * is covered for every tool. Then removes the groups and event lists its removals emptied (a
   * list the user left empty, `"Stop": []`, stays), and, without `keep` (an uninstall), a `hooks`
   * map they emptied (with `keep`, an install appends to it next, so it stays in place). Values of another shape (a `hooks` that is not a map, an event
   * that is not a list) are left as they are. Every removal is described in `removed`. Returns the
   * events that still hold a covering handler with command `keep`.
   */
  removeCommands(doc: ConfigDocument, options: RemoveCommandsOptions): Set<string>;
  /**
   * The one-line summary of an install's change to one file: the events cordon was added to,
   * then every removal {@link removeCommands} described (`add cordon to PreToolUse; removed: …`).
   */
  summary(added: readonly string[], removed: readonly string[]): string;
}

/**
 * The hook command in the forms agents need. Each form is one string that the named shell turns
 * back into exactly {@link argv}; the installer picks the form its agent's shell on
 * {@link platform} reads (docs/hooks.md, "Windows").
 */
export interface HookCommand {
  /** argv of the command, absolute paths first (`[node, /abs/bin/run.cjs, 'hook', '--agent', name]`; on Windows `C:\…\node.exe`). */
  readonly argv: readonly string[];
  /** The platform the command is for (`process.platform` where install-hooks runs): `win32` selects the Windows forms. */
  readonly platform: string;
  /** POSIX `sh` form (single-quoted where needed): `sh -c`, bash, Git Bash, and Python's `shlex.split` (Hermes). */
  readonly shell: string;
  /**
   * PowerShell form (`& 'C:\…\node.exe' 'C:\…\run.cjs' hook --agent codex`, bare words where every
   * argument is plain): for `powershell -Command` / `pwsh -Command` (Claude Code with
   * `"shell": "powershell"`, Codex and Gemini CLI on Windows). When every argument is plain it is
   * a bare command line that cmd.exe runs the same way.
   */
  readonly powershell: string;
  /** cmd.exe form, for `cmd.exe /d /s /c "<form>"` (what Node's `spawn(…, {shell: true})` runs on Windows). */
  readonly cmd: string;
  /** True when some argument contains whitespace (Cursor splits commands on spaces without quoting). */
  readonly hasSpaces: boolean;
  /** True when the executable came from the user's `--command` (so an error about it can say so). */
  readonly fromFlag: boolean;
}

/** One file to change. Files that would not change are left out of a plan. */
export interface ConfigChange {
  /** Absolute path. */
  readonly path: string;
  /** Current content; `undefined` when the file does not exist. */
  readonly before: string | undefined;
  /** New content; `undefined` deletes the file. */
  readonly after: string | undefined;
  /** One line saying what changes, e.g. `add cordon to PreToolUse, PostToolUse`. */
  readonly summary: string;
  /**
   * Uninstall plans: how many of cordon's entries (handlers, trust entries, approvals) the change
   * removes. The host gives a file back its pre-install bytes only when those hold none (0 when
   * an uninstall planned on them), so an older install's entries never come back.
   */
  readonly cordonRemoved?: number;
}

/** What an installer proposes. */
export interface InstallPlan {
  readonly changes: readonly ConfigChange[];
  /** Lines for the user: steps the agent still needs (consent, trust), what was skipped and why. */
  readonly notes: readonly string[];
  /**
   * What may keep the agent from running the hooks and only the user can settle (Codex trust that
   * no `codex` binary confirmed): printed as `warning:` lines at the end of the output and on
   * stderr, and listed under `warnings` in `--json`.
   */
  readonly warnings?: readonly string[];
  /**
   * Set when the agent has no hooks at this scope at all (Hermes has no project-level hooks): why,
   * and what to do instead. The host reports the agent as skipped (never "already installed"),
   * and refuses with exit 2 when the agent was named with `--agent`.
   */
  readonly skipped?: string;
}

/** A key path into a config document: map keys and array indices. */
export type ConfigPath = ReadonlyArray<string | number>;

/** A parsed config file that is edited in place, keeping everything not touched (comments, order, layout). */
export interface ConfigDocument {
  /** The parsed value (plain JSON data). */
  readonly value: unknown;
  /** Sets the value at `path`, creating missing maps. */
  set(path: ConfigPath, value: unknown): void;
  /** Appends `item` to the array at `path`, creating the array and missing maps. */
  append(path: ConfigPath, item: unknown): void;
  /** Removes the entry at `path` (a map key or an array element); no-op when absent. */
  remove(path: ConfigPath): void;
  /** The edited text. */
  toString(): string;
}

/** A TOML file edited by surgical text edits, validated by re-parsing (no TOML library keeps comments). */
export interface TomlDocument {
  /** The parsed value. */
  readonly value: unknown;
  /**
   * Makes `[<path>]` a table holding `entries` (string, number or boolean values): updates the
   * keys of an existing standard table in place, or appends a new table (after `comment`, if given).
   * Throws when the table exists in a form it cannot edit surgically (inline or dotted).
   */
  upsertTable(path: readonly string[], entries: Readonly<Record<string, string | number | boolean>>, comment?: string): void;
  /** Removes the standard table `[<path>]` (header, its keys, and a directly preceding `comment` line when given). */
  removeTable(path: readonly string[], comment?: string): void;
  toString(): string;
}

/** The editors. Each throws a `CORDON_CONFIG_UNPARSEABLE` error naming `path` when `text` does not parse. */
export interface ConfigFormats {
  /**
   * JSON; `comments: true` accepts JSONC (Gemini's settings allow comments) and keeps them;
   * `bom: true` reads past a leading byte order mark (U+FEFF) and keeps it, for an agent that reads
   * its file with one (Claude Code). Without it a mark is refused, named as such.
   */
  json(path: string, text: string | undefined, options?: { readonly comments?: boolean; readonly bom?: boolean }): ConfigDocument;
  /** YAML edited by splicing only the lines touched (comments, spacing, CRLF kept), each edit re-parsed and checked. */
  yaml(path: string, text: string | undefined): ConfigDocument;
  /** TOML, comments and layout kept. */
  toml(path: string, text: string | undefined): TomlDocument;
}
