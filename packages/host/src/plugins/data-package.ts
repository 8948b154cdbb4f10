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
 * util/json-syntax.ts), no JSON object, or unreadable; undefined when it serves, or does not exist
 * (no plugin is linked or installed yet). The fix: fix the file, or remove it and add the plugins
 * again (`cordon plugins link` itself reads the file, so it cannot repair it).
 */
export function dataPackageProblem(dataDir: string): DataPackageProblem | undefined {
  const file = join(dataDir, 'package.json');
  const read = readPackageJson(file);
  if (!('problem' in read)) return undefined;
  const { problem: kind, detail } = read.problem;
  if (kind === 'missing') return undefined;
  const why = kind === 'directory' ? 'it is a directory, not a file' : kind === 'unsafe' ? `it ${detail}` : kind === 'unreadable' ? `it cannot be read (${detail})` : kind === 'syntax' ? `it is not valid JSON: ${detail}` : 'it must hold a JSON object';
  return problem(file, why);
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
