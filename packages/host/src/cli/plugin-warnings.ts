import type { CordonHost } from '../bus/host.js';
import { terminalLines } from '../output/terminal.js';

/**
 * Prints each plugin that failed to register or apply as one `warning: …` line on stderr (never
 * stdout, which stays machine-readable under `--json`), so a broken plugin is seen but never stops
 * an unrelated command. Returns `host` for chaining.
 */
export function warnPluginFailures(host: CordonHost): CordonHost {
  for (const failure of host.failures) process.stderr.write(`warning: ${terminalLines(failure.message)}\n`);
  return host;
}
