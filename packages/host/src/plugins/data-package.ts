import { join } from 'node:path';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { parseJsonText } from '../util/json-syntax.js';
import { isMissingFile, readRegularFile, UnsafeReadError } from '../io/safe-read.js';

/** The largest `<dataDir>/package.json` read: a list of plugins is a few KiB. */
const DATA_PACKAGE_MAX_BYTES = 16 * 1024 * 1024;

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
  let text: string;
  try {
    // Opened non-blocking, regular files only: a FIFO here held every command, doctor included,
    // until something wrote to it (readFileSync waits for a writer).
    text = readRegularFile(file, { maxBytes: DATA_PACKAGE_MAX_BYTES, links: 'always' }).toString('utf8');
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    if (error instanceof UnsafeReadError) return problem(file, error.detail === 'is not a regular file (a directory)' ? 'it is a directory, not a file' : `it ${error.detail}`);
    const code = (error as NodeJS.ErrnoException).code;
    return problem(file, code === 'EISDIR' ? 'it is a directory, not a file' : `it cannot be read (${code ?? String(error)})`);
  }
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    return problem(file, `it is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return problem(file, 'it must hold a JSON object');
  return undefined;
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
