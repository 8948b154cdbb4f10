import { join, resolve } from 'node:path';
import { blockingFileKind } from '../io/safe-read.js';
import { readPackageJson } from './data-package.js';
import { registerTargets } from './hook-targets.js';

/** A plugin `<dataDir>/package.json` lists that oclif cannot load, in the words cordon prints. */
export interface ListedPluginProblem {
  /** The name the list gives it (`@cordon/codex`, or a linked checkout's name). */
  readonly name: string;
  /** `link` (`cordon plugins link`) or `user` (`cordon plugins install`). */
  readonly type: 'link' | 'user';
  /** Its directory: the linked checkout, or `<dataDir>/node_modules/<name>`. */
  readonly root: string;
  /** `the plugin <name> linked from <root> cannot be loaded: its package.json is not valid JSON: …`. */
  readonly message: string;
  /** The way out: fix or rebuild the checkout and link it again, or unlink / reinstall it. */
  readonly fix: string;
  /**
   * A file oclif reads for it before any command runs (its `package.json`, `oclif.manifest.json`)
   * or cordon's plugin loading imports (its `cordon:register` modules) is a FIFO, socket or
   * device: oclif's read would wait for ever, so oclif must not load the listed plugins at all.
   */
  readonly blocks: boolean;
}

/**
 * The plugins `<dataDir>/package.json` lists (its `oclif.plugins`, as `cordon plugins link` and
 * `install` write them) whose own `package.json` oclif cannot read: the directory or the file is
 * gone (a linked checkout deleted or moved), it is not a regular file, or it is not a JSON
 * object; or a file whose read would never end stands where oclif or cordon reads the plugin
 * ({@link ListedPluginProblem.blocks}). oclif says of each only `(node:…) SyntaxError Plugin: @cordon/host: Expected
 * double-quoted property name…`, naming the host and no plugin, and goes on without it. Reads
 * only; an unreadable or damaged list itself is {@link dataPackageProblem}'s to report, and gives
 * none here.
 */
export function listedPluginProblems(dataDir: string): ListedPluginProblem[] {
  const list = readPackageJson(join(dataDir, 'package.json'));
  const listed = 'value' in list ? (list.value.oclif as { plugins?: unknown } | undefined)?.plugins : undefined;
  if (!Array.isArray(listed)) return [];
  const problems: ListedPluginProblem[] = [];
  for (const entry of listed as unknown[]) {
    if (entry === null || typeof entry !== 'object') continue;
    const { name, type, root } = entry as { name?: unknown; type?: unknown; root?: unknown };
    if (typeof name !== 'string' || (type !== 'link' && type !== 'user')) continue;
    const dir = type === 'link' ? (typeof root === 'string' ? root : undefined) : join(dataDir, 'node_modules', ...name.split('/'));
    if (dir === undefined) continue;
    const read = readPackageJson(join(dir, 'package.json'));
    const blocking = blockingPluginFile(dir, read);
    const problem = blocking ?? pluginPackageProblem(join(dir, 'package.json'), read);
    if (problem === undefined) continue;
    const where = type === 'link' ? `linked from ${dir}` : `installed in ${dir}`;
    problems.push({
      name,
      type,
      root: dir,
      message: `the plugin ${name} ${where} cannot be loaded: ${problem}; cordon runs without ${blocking ? `any plugin ${join(dataDir, 'package.json')} lists until it is fixed` : 'it'}`,
      fix: type === 'link' ? `fix or restore that checkout, or unlink it: \`cordon plugins unlink ${name}\`` : `reinstall it: \`cordon plugins install ${name}\`, or remove it: \`cordon plugins uninstall ${name}\``,
      blocks: blocking !== undefined,
    });
  }
  return problems;
}

/**
 * The first file of the plugin in `dir` whose read would never end (io/safe-read.ts
 * `blockingFileKind`): its `package.json`, its `oclif.manifest.json`, or a `cordon:register`
 * module its package.json names, worded (`its oclif.manifest.json is not a regular file (a
 * FIFO)`); undefined when there is none. Looks at the files' types only (one `stat` each);
 * `read` is its package.json as {@link readPackageJson} read it (non-blocking: a FIFO reads as a problem).
 */
function blockingPluginFile(dir: string, read: ReturnType<typeof readPackageJson>): string | undefined {
  for (const file of ['package.json', 'oclif.manifest.json']) {
    const kind = blockingFileKind(join(dir, file));
    if (kind !== undefined) return `its ${file} is not a regular file (${kind})`;
  }
  if (!('value' in read)) return undefined;
  for (const { target } of registerTargets(read.value as Parameters<typeof registerTargets>[0])) {
    const kind = blockingFileKind(resolve(dir, target));
    if (kind !== undefined) return `its cordon:register module ${target} is not a regular file (${kind})`;
  }
  return undefined;
}

/** What keeps oclif from reading the plugin manifest at `file`, or undefined when it reads. */
function pluginPackageProblem(file: string, read: ReturnType<typeof readPackageJson>): string | undefined {
  if (!('problem' in read)) return undefined;
  const { problem, detail } = read.problem;
  if (problem === 'missing') return `there is no ${file}`;
  if (problem === 'directory' || problem === 'unsafe') return `its package.json ${detail}`;
  if (problem === 'unreadable') return `its package.json cannot be read (${detail})`;
  return problem === 'syntax' ? `its package.json is not valid JSON: ${detail}` : 'its package.json does not hold a JSON object';
}
