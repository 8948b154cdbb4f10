import { join } from 'node:path';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { parseJsonText } from '../util/json-syntax.js';
import { isMissingFile, readRegularFile, UnsafeReadError } from '../io/safe-read.js';

/** The largest `package.json` read: a list of plugins, or a plugin's manifest, is a few KiB. */
export const PACKAGE_JSON_MAX_BYTES = 16 * 1024 * 1024;

/** What is wrong with a `<dataDir>/package.json`, in the words of its refusal. */
export interface DataPackageProblem {
  /** The file. */
  readonly file: string;
  /** What is wrong (`it is not valid JSON: expected property name at line 1, column 2`). */
  readonly problem: string;
  /** `<file> lists cordon's linked and installed plugins, but <problem>`. */
  readonly message: string;
  /** The way out: fix it, or remove it and add the plugins again. */
  readonly fix: string;
}

/**
 * What is wrong with `<dataDir>/package.json` (the list of linked and installed plugins, which
 * oclif's plugin loading reads) as one: not JSON (`expected property name at line 1, column 2`:
 * util/json-syntax.ts), no JSON object, a list of plugins of the wrong shape
 * ({@link pluginListProblem}), or unreadable; undefined when it serves, or does not exist
 * (no plugin is linked or installed yet). The fix: fix the file, or remove it and add the plugins
 * again (`cordon plugins link` itself reads the file, so it cannot repair it).
 */
export function dataPackageProblem(dataDir: string): DataPackageProblem | undefined {
  const file = join(dataDir, 'package.json');
  const read = readPackageJson(file);
  if (!('problem' in read)) {
    const shape = pluginListProblem(read.value);
    return shape === undefined ? undefined : problem(file, shape);
  }
  const { problem: kind, detail } = read.problem;
  if (kind === 'missing') return undefined;
  const why = kind === 'directory' ? 'it is a directory, not a file' : kind === 'unsafe' ? `it ${detail}` : kind === 'unreadable' ? `it cannot be read (${detail})` : kind === 'syntax' ? `it is not valid JSON: ${detail}` : 'it must hold a JSON object';
  return problem(file, why);
}

/**
 * What is wrong with the list of plugins in a `<dataDir>/package.json` read as a JSON object
 * (`value`), in the words of its refusal (`its oclif.plugins[1] is null, not a plugin entry`), or
 * undefined when oclif and cordon's discovery can read it: `oclif` absent or an object,
 * `oclif.plugins` absent or a list, and each entry a package name (oclif's older form) or an
 * object with a string `name`, and a string `root` when its `type` is `link`. oclif read
 * `"plugins": 5` or `[null]` with a TypeError it printed as Node's warning naming no file
 * (`pjson.oclif.plugins.filter is not a function`), and went on with no plugin; the hook failed
 * on it with a TypeError in the log.
 */
export function pluginListProblem(value: Readonly<Record<string, unknown>>): string | undefined {
  const { oclif } = value;
  if (oclif === undefined) return undefined;
  if (oclif === null || typeof oclif !== 'object' || Array.isArray(oclif)) return `its oclif is ${shapeOf(oclif)}, not an object`;
  const { plugins } = oclif as { plugins?: unknown };
  if (plugins === undefined) return undefined;
  if (!Array.isArray(plugins)) return `its oclif.plugins is ${shapeOf(plugins)}, not a list`;
  for (const [i, entry] of (plugins as unknown[]).entries()) {
    if (typeof entry === 'string') continue;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return `its oclif.plugins[${i}] is ${shapeOf(entry)}, not a plugin entry ({"name", "type"})`;
    const { name, type, root } = entry as { name?: unknown; type?: unknown; root?: unknown };
    if (typeof name !== 'string') return `its oclif.plugins[${i}] has ${name === undefined ? 'no name' : `a name that is ${shapeOf(name)}`}, not a string`;
    if (type === 'link' && typeof root !== 'string') return `its oclif.plugins[${i}] (${JSON.stringify(name)}) is linked, but has ${root === undefined ? 'no root' : `a root that is ${shapeOf(root)}`}, not a directory`;
  }
  return undefined;
}

/** A JSON value's kind, for a refusal: `null`, `a list`, `a number (5)`, `a string`, `an object`. */
function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number' || typeof value === 'boolean') return `a ${typeof value} (${String(value)})`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Why a `package.json` cannot serve ({@link readPackageJson}); `detail` is the reader's or parser's words. */
export interface PackageJsonProblem {
  readonly problem: 'missing' | 'directory' | 'unsafe' | 'unreadable' | 'syntax' | 'not-object';
  readonly detail: string;
}

/**
 * Reads a `package.json` cordon's plugin loading depends on (the data directory's list, a listed
 * plugin's manifest) as oclif would need it: opened non-blocking, regular files only, at most
 * 16 MiB (a FIFO here held every command, doctor included, until something wrote to it), parsed
 * as one JSON object. Returns the object, or what is wrong for the caller to word. Never throws.
 */
export function readPackageJson(file: string): { readonly value: Record<string, unknown> } | { readonly problem: PackageJsonProblem } {
  let text: string;
  try {
    text = readRegularFile(file, { maxBytes: PACKAGE_JSON_MAX_BYTES, links: 'always' }).toString('utf8');
  } catch (error) {
    if (isMissingFile(error)) return { problem: { problem: 'missing', detail: 'does not exist' } };
    if (error instanceof UnsafeReadError) return { problem: error.detail === 'is not a regular file (a directory)' ? { problem: 'directory', detail: error.detail } : { problem: 'unsafe', detail: error.detail } };
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'EISDIR' ? { problem: 'directory', detail: code } : { problem: 'unreadable', detail: code ?? String(error) } };
  }
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    return { problem: { problem: 'syntax', detail: (error as Error).message } };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: { problem: 'not-object', detail: 'no JSON object' } };
  return { value: value as Record<string, unknown> };
}

/**
 * Refuses a `<dataDir>/package.json` that cannot serve ({@link dataPackageProblem}): oclif would
 * print Node's raw warning naming no file (`(node:…) SyntaxError: Expected property name or '}'
 * in JSON at position 1`) and go on with no plugin, so `cordon plugins` says `No plugins
 * installed.`. Throws `CORDON_BAD_INPUT` (exit 2) naming the file, what is wrong and the way out.
 * Run before oclif loads (cli/environment.ts `prepareOclif`).
 */
export function checkDataPackage(dataDir: string): void {
  const found = dataPackageProblem(dataDir);
  if (found) throw new CordonError(ERROR_CODES.BAD_INPUT, `${found.message}; ${found.fix}`, { details: { file: found.file, problem: found.problem } });
}

/** The {@link DataPackageProblem} of `file`. */
function problem(file: string, why: string): DataPackageProblem {
  return {
    file,
    problem: why,
    message: `${file} lists cordon's linked and installed plugins, but ${why}`,
    fix: `fix it, or remove it (rm ${JSON.stringify(file)}) and add the plugins again: from a checkout \`npm run plugins:link\`, otherwise \`cordon plugins install <name>\``,
  };
}
