/**
 * The one catalogue of cordon error codes (in the manner of Rollup's `logs.ts`): every error the
 * host or a plugin boundary raises carries one of these stable codes, and `--json` output
 * prints it. Add new codes here, never inline.
 */
export const ERROR_CODES = Object.freeze({
  /** A plugin tap or `apply()` threw; `plugin` and `hook` say which. */
  PLUGIN_ERROR: 'CORDON_PLUGIN_ERROR',
  /** A plugin's `cordon:register` hook did not return a valid descriptor. */
  PLUGIN_INVALID: 'CORDON_PLUGIN_INVALID',
  /** A plugin was built for another plugin API version (`apiVersion` in its descriptor); it is not applied. */
  PLUGIN_INCOMPATIBLE: 'CORDON_PLUGIN_INCOMPATIBLE',
  /** `cordon plugins install`/`link` could not add a plugin (npm failed, the registry has no such package); the plugin set is as it was. */
  PLUGIN_INSTALL: 'CORDON_PLUGIN_INSTALL',
  /** Two plugins registered the same name in one registry. */
  REGISTRY_DUPLICATE: 'CORDON_REGISTRY_DUPLICATE',
  /** A registry lookup found nothing (e.g. `--agent` names no installed dialect). */
  REGISTRY_MISSING: 'CORDON_REGISTRY_MISSING',
  /**
   * Command-line input is invalid (flag values, globs, ranges), or an environment variable that
   * names one of cordon's directories cannot be used (relative, not a directory, or one cordon
   * cannot list and enter: the message names the variable and its value). Exit 2 on envelope
   * commands.
   */
  BAD_INPUT: 'CORDON_BAD_INPUT',
  /** The on-disk state is missing, corrupt or of another version. Exit 2. */
  BAD_STATE: 'CORDON_BAD_STATE',
  /**
   * The state directory (`.cordon/`) is not cordon's: a link, a file, tracked by git, or holding
   * files cordon does not write. cordon neither uses nor removes it. Exit 2.
   */
  STATE_FOREIGN: 'CORDON_STATE_FOREIGN',
  /**
   * A verdict or state change could not be saved (read-only or full file system, EIO); `details`
   * names the state directory and what was not saved. The audit is not run again. Exit 2.
   */
  STATE_WRITE: 'CORDON_STATE_WRITE',
  /** The envelope lock is held by a live process. Exit 2. */
  LOCK_HELD: 'CORDON_LOCK_HELD',
  /** A git command failed or the path is not a work tree. Exit 2. */
  REPO_ERROR: 'CORDON_REPO_ERROR',
  /** A child process (verifier, agent) could not be started, or its limits were invalid. Exit 2. */
  PROCESS_ERROR: 'CORDON_PROCESS_ERROR',
  /** A database could not be opened, is corrupt, or has a newer schema. */
  DB_ERROR: 'CORDON_DB_ERROR',
  /** `cordon export --otlp`: the receiver was unreachable, refused the data or did not answer in time. The local store is only read. Exit 2. */
  EXPORT_ERROR: 'CORDON_EXPORT_ERROR',
  /**
   * A ledger request broke a partial-compaction rule (the Rust pcodx, SichangHe/partial_compact_codex: unknown
   * session, endpoint not visible, reversed range, tool group split, overlap) or named a bad
   * role or text. Nothing was written. A session name that cannot be one is `BAD_INPUT` (exit 2,
   * naming `--session`): the user's mistake, not a refused request.
   */
  LEDGER_REFUSED: 'CORDON_LEDGER_REFUSED',
  /** An agent config file that install-hooks would edit exists but does not parse; it is left untouched. Exit 2. */
  CONFIG_UNPARSEABLE: 'CORDON_CONFIG_UNPARSEABLE',
  /** An agent config file cannot be edited safely (a form cordon does not rewrite, a command path the agent would split). Exit 2. */
  CONFIG_EDIT: 'CORDON_CONFIG_EDIT',
  /**
   * install-hooks / uninstall-hooks could not write one of the files of its plan (EACCES, a full
   * disk). Every file already written in that run was put back; `details.written` and
   * `details.not_written` list what changed and what did not (both empty of changes when the
   * roll-back worked). Exit 2.
   */
  HOOKS_WRITE_FAILED: 'CORDON_HOOKS_WRITE_FAILED',
  /**
   * The pcodx usage log cannot be written safely: it is open to group or others, a symbolic link,
   * not a regular file, or the ledger database itself (the Rust pcodx, SichangHe/partial_compact_codex). Nothing was written.
   */
  USAGE_LOG_REFUSED: 'CORDON_USAGE_LOG_REFUSED',
  /** Something cordon did not expect; a bug. */
  INTERNAL: 'CORDON_INTERNAL',
} as const);

/** One of the codes in {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];
