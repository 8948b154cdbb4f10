import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { checkoutPluginDir, pluginInstallCommand } from './install-hint.js';

/**
 * What `cordon plugins install`/`link` say when oclif's installer throws: a {@link CordonError}
 * (`CORDON_PLUGIN_INSTALL`, the exit code oclif gave, else 1) with oclif's message, plus, for a
 * first-party plugin (`names`: the package names asked for) that the registry does not hold while
 * this cordon runs from a checkout holding it, the command that links it instead. A
 * `CordonError` passes through.
 */
export function pluginCommandError(error: unknown, names: readonly string[]): CordonError {
  if (error instanceof CordonError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const exit = (error as { oclif?: { exit?: unknown } } | null)?.oclif?.exit;
  const firstParty = names.filter((n) => n.startsWith('@cordon/')).map((n) => n.slice('@cordon/'.length));
  const linkable = firstParty.length > 0 && firstParty.every((n) => checkoutPluginDir(n) !== undefined);
  const hint = linkable && /does not exist in the registry|\bE?404\b/i.test(message) ? ` This cordon runs from a checkout; to add ${firstParty.map((n) => `@cordon/${n}`).join(', ')} to this cordon: \`${pluginInstallCommand(firstParty)}\`` : '';
  return new CordonError(ERROR_CODES.PLUGIN_INSTALL, `${message.trim()}${hint}`, { exit: typeof exit === 'number' && exit > 0 ? exit : 1, cause: error, details: { plugins: [...names] } });
}

/**
 * Why `path` cannot be linked as a plugin, checked before oclif's linker (whose own words are
 * "does not appear to be a valid CLI plugin" or a dump of its lookup): undefined when it is a
 * directory holding a `package.json` file. Bad input (exit 2), naming the path.
 */
export function linkPathProblem(path: string): CordonError | undefined {
  const sample = checkoutPluginDir('codex');
  const takes = `\`plugins link\` takes the directory of a plugin package${sample ? `, such as ${sample}` : ''}`;
  const at = statSync(path, { throwIfNoEntry: false });
  const refuse = (why: string) => new CordonError(ERROR_CODES.BAD_INPUT, `${why}: ${takes}`, { details: { path } });
  if (!at) return refuse(`nothing at ${path}`);
  if (!at.isDirectory()) return refuse(`${path} is not a directory`);
  if (!statSync(join(path, 'package.json'), { throwIfNoEntry: false })?.isFile()) return refuse(`${path} holds no package.json, so it is no plugin package`);
  return undefined;
}
