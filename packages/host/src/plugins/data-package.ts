import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { parseJsonText } from '../util/json-syntax.js';

/**
 * Refuses a `<dataDir>/package.json` (the list of linked and installed plugins, which oclif's
 * plugin loading reads) that cannot serve as one: not JSON, no JSON object, or unreadable. oclif
 * would print Node's raw warning naming no file (`(node:…) SyntaxError: Expected property name
 * or '}' in JSON at position 1`) and go on with no plugin, so `cordon plugins` says `No plugins
 * installed.` and `cordon doctor` that cordon knows no agent. Throws `CORDON_BAD_INPUT` (exit 2)
 * naming the file, what is wrong (`expected property name at line 1, column 2`:
 * util/json-syntax.ts) and the way out: fix the file, or remove it and add the plugins again
 * (`cordon plugins link` itself reads the file, so it cannot repair it). A file that does not
 * exist is fine: no plugin is linked or installed yet. Run before oclif loads
 * (cli/environment.ts `prepareOclif`).
 */
export function checkDataPackage(dataDir: string): void {
  const path = join(dataDir, 'package.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw refused(path, code === 'EISDIR' ? 'it is a directory, not a file' : `it cannot be read (${code ?? String(error)})`);
  }
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    throw refused(path, `it is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw refused(path, 'it must hold a JSON object');
}

/** `CORDON_BAD_INPUT`: `<path> lists cordon's plugins, but <why>; <the way out>`. */
function refused(path: string, why: string): CordonError {
  return new CordonError(
    ERROR_CODES.BAD_INPUT,
    `${path} lists cordon's linked and installed plugins, but ${why}; fix it, or remove it (rm ${JSON.stringify(path)}) and add the plugins again: from a checkout \`npm run plugins:link\`, otherwise \`cordon plugins install <name>\``,
    { details: { file: path, problem: why } },
  );
}
