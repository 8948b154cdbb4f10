/**
 * A headless agent launcher for `cordon run` / `cordon resume` (research/cordon-envelope.md §10).
 */
export interface RunnerEntry {
  /** Agent name (`claude-code`, `codex`, `gemini`). */
  readonly name: string;
  /** Loads the runner implementation lazily. */
  readonly load: () => Promise<unknown>;
}
