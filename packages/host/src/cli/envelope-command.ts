import { CordonError } from '../errors/index.js';
import { CordonCommand } from './cordon-command.js';

/**
 * Base of `arm`, `check`, `status`, `reset`: a refusal exits with its `CordonError` exit code
 * (2) also under `--json`, where oclif prints the error object instead of rethrowing and would
 * otherwise fall back to exit 1 (issue 2: "Exit codes 0 accepted, 2 refused, 3 rejected").
 */
export abstract class EnvelopeCommand extends CordonCommand {
  /**
   * Plain pretty JSON: oclif's colorizing tokenizer costs a noticeable share of a check's wall
   * time on an audit of thousands of paths, and its output without a theme is the same text.
   */
  override logJson(json: unknown): void {
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (error instanceof CordonError) process.exitCode = error.exit;
    return super.catch(error);
  }
}
