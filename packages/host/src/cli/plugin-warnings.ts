import { join } from 'node:path';
import type { CordonHost } from '../bus/host.js';
import type { HostLoadPlan } from '../bus/load-host.js';
import { terminalLines } from '../output/terminal.js';
import { dataPackageProblem } from '../plugins/data-package.js';

/**
 * Prints each plugin that failed to register or apply as one `warning: …` line on stderr (never
 * stdout, which stays machine-readable under `--json`), so a broken plugin is seen but never stops
 * an unrelated command. Returns `host` for chaining.
 */
export function warnPluginFailures(host: CordonHost): CordonHost {
  for (const failure of host.failures) process.stderr.write(`warning: ${terminalLines(failure.message)}\n`);
  return host;
}

/**
 * For a command that must run all the same (`control run` wraps an agent's shell call): when
 * `<dataDir>/package.json` is damaged (plugins/data-package.ts), one `warning: …` line on stderr
 * naming the file and the way out, as the refusal of other commands does, and saying the command
 * runs without the plugins it lists. Nothing when the file serves or does not exist. With `plan`
 * (a fast route's plugin discovery) the file is read again only when discovery skipped it, so an
 * ordinary run pays nothing.
 */
export function warnDataPackage(dataDir: string, plan?: Pick<HostLoadPlan, 'skipped'>): void {
  if (plan && !plan.skipped.some((s) => s.what === join(dataDir, 'package.json'))) return;
  const found = dataPackageProblem(dataDir);
  if (found) process.stderr.write(`warning: ${terminalLines(`${found.message}; the command runs without the plugins it lists; ${found.fix}`)}\n`);
}
