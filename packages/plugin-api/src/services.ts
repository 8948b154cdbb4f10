import type { FileService } from './services/files.js';
import type { LedgerService } from './services/ledger.js';
import type { NameService } from './services/names.js';
import type { ProcessService } from './services/process.js';
import type { RedactService } from './services/redact.js';
import type { TelemetryService } from './services/telemetry.js';
import type { TerminalService } from './services/terminal.js';
import type { UsageService } from './services/usage.js';

/**
 * Runtime helpers the host lends to plugins through `api.services`, so plugins never import
 * host code (an installed plugin cannot resolve `@cordon/host`: docs/plugins.md).
 */
export interface CordonServices {
  /**
   * Tests a repo-relative path against one envelope glob with cordon's semantics
   * (`*` never crosses `/`, `**` does, `?` is one non-`/` character, case-sensitive).
   */
  readonly matchGlob: (glob: string, path: string) => boolean;
  /** The partial-compaction ledger (the Rust pcodx, SichangHe/partial_compact_codex); compactions fire the host `compact` hook. */
  readonly ledger: LedgerService;
  /** Markers, session directories and the session sampler (packages/host/src/telemetry/MARKERS.md). */
  readonly telemetry: TelemetryService;
  /** Ending like a command this process ran (exit code, or the same signal). */
  readonly process: ProcessService;
  /** File-system checks worded as the host's (a directory flag: `--cwd /x: no such directory`). */
  readonly files: FileService;
  /** The host's redaction of secrets in command text and argv (`Bearer ***`, `--token ***`). */
  readonly redact: RedactService;
  /**
   * The host's choice of the name a typo meant (`recrod` → `record`), for a plugin's own "Did you
   * mean …?". Hosts before it lend none: a plugin that may run on one checks that it is there.
   */
  readonly names: NameService;
  /**
   * The host's terminal escaping, for what a plugin prints on a terminal (a render shown on a
   * TTY). Hosts before it lend none: a plugin that may run on one checks that it is there.
   */
  readonly terminal: TerminalService;
  /**
   * The host's one-line words for oclif's parse errors, for a plugin that prints its own errors.
   * Hosts before it lend none: a plugin that may run on one checks that it is there.
   */
  readonly usage: UsageService;
}
