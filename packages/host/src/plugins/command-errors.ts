import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { readPackageJson } from './data-package.js';
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
 * directory holding a `package.json` file that is a JSON object (read as data-package.ts
 * `readPackageJson` reads one: non-blocking, at most 16 MiB) with a string `name` and an `oclif`
 * object. Bad input (exit 2), naming the path.
 */
export function linkPathProblem(path: string): CordonError | undefined {
  const sample = checkoutPluginDir('codex');
  const takes = `\`plugins link\` takes the directory of a plugin package${sample ? `, such as ${sample}` : ''}`;
  const at = statSync(path, { throwIfNoEntry: false });
  const refuse = (why: string) => new CordonError(ERROR_CODES.BAD_INPUT, `${why}: ${takes}`, { details: { path } });
  if (!at) return refuse(`nothing at ${path}`);
  if (!at.isDirectory()) return refuse(`${path} is not a directory`);
  if (!statSync(join(path, 'package.json'), { throwIfNoEntry: false })?.isFile()) return refuse(`${path} holds no package.json, so it is no plugin package`);
  // What oclif's linker would refuse in the package.json, named here: oclif said `could not find
  // package.json with { isRoot: true, … }` of one not JSON or `null`, `plugin is invalid` of one
  // without an `oclif` section, and `no name in package.json` of `[1,2]`.
  const file = join(path, 'package.json');
  const why = manifestProblem(readPackageJson(file));
  return why === undefined ? undefined : refuse(`${file} ${why}, so ${path} is no plugin package`);
}

/** What keeps a plugin's package.json, as {@link readPackageJson} read it, from naming an oclif plugin; undefined when nothing does. */
function manifestProblem(read: ReturnType<typeof readPackageJson>): string | undefined {
  if ('problem' in read) {
    const { problem, detail } = read.problem;
    if (problem === 'syntax') return `is not valid JSON: ${detail}`;
    if (problem === 'not-object') return 'does not hold a JSON object';
    if (problem === 'unreadable') return `cannot be read (${detail})`;
    return problem === 'missing' ? 'does not exist' : detail;
  }
  const { name, oclif } = read.value;
  if (typeof name !== 'string' || name === '') return 'has no package name (a string `name`)';
  if (oclif === null || typeof oclif !== 'object' || Array.isArray(oclif)) return 'has no `oclif` section (an object naming its commands or hooks)';
  return undefined;
}
