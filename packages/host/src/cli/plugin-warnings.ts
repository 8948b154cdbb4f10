import { join } from 'node:path';
import type { CordonHost } from '../bus/host.js';
import type { HostLoadPlan } from '../bus/load-host.js';
import { terminalLines } from '../output/terminal.js';
import { dataPackageProblem } from '../plugins/data-package.js';
import { listedPluginProblems, type ListedPluginProblem } from '../plugins/listed-plugins.js';
import { createFileLogger } from '../util/log.js';

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

/**
 * When a plugin `<dataDir>/package.json` lists has a file whose read would never end where oclif
 * or cordon reads it (plugins/listed-plugins.ts, {@link ListedPluginProblem.blocks}: a FIFO as
 * its package.json held every oclif command, doctor included, until something wrote to it),
 * says each listed plugin that cannot load in one `warning: …` line with its way out (`quiet`:
 * to the log only) and returns true: the caller loads oclif without the listed plugins. False,
 * saying nothing, otherwise.
 */
export function warnBlockingPlugins(dataDir: string, options: { readonly quiet: boolean }): boolean {
  const found = listedPluginProblems(dataDir);
  if (!found.some((p) => p.blocks)) return false;
  sayPluginProblems(dataDir, found.map((p) => `${p.message}; ${p.fix}`), options);
  return true;
}

/** `lines` as `warning: …` lines on stderr, each on one escaped line; `quiet`: to the log only. */
function sayPluginProblems(dataDir: string, lines: readonly string[], options: { readonly quiet: boolean }): void {
  if (options.quiet) {
    const log = createFileLogger(dataDir, 'plugins');
    for (const line of lines) log.warn(line);
    return;
  }
  for (const line of lines) process.stderr.write(`warning: ${terminalLines(line).replace(/\n/g, ' ')}\n`);
}

/**
 * Replaces oclif's warning for a plugin it could not load: `Config.warn` emits it as an Error
 * whose `detail` holds `module: @oclif/core`, named for the host (`SyntaxError Plugin:
 * @cordon/host: Expected double-quoted property name…`), over five lines, with the plugin's own
 * text raw, and names no plugin. Instead, once per process, each plugin `<dataDir>/package.json`
 * lists that cannot be loaded gets one `warning: …` line with its way out
 * (plugins/listed-plugins.ts); when none is found, oclif's message is printed on one escaped
 * line. `quiet` (the hook, which prints nothing it does not decide; doctor, which reports them as
 * findings): the lines go to the log only. Every other warning is emitted as before.
 */
export function replaceOclifPluginWarnings(dataDir: string, options: { readonly quiet: boolean }): void {
  const emitWarning = process.emitWarning;
  let said = false;
  process.emitWarning = function (warning: string | Error, ...rest: unknown[]) {
    const detail = warning instanceof Error ? (warning as { detail?: unknown }).detail : undefined;
    if (!(typeof detail === 'string' && detail.includes('module: @oclif/core'))) return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
    if (said) return;
    said = true;
    const found = listedPluginProblems(dataDir);
    const lines = found.length ? found.map((p) => `${p.message}; ${p.fix}`) : [`a plugin could not be loaded, and cordon runs without it: ${(warning as Error).message}`];
    sayPluginProblems(dataDir, lines, options);
  } as typeof process.emitWarning;
}
