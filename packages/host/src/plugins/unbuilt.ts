// A linked plugin checkout that was never built (no dist/): oclif links it happily, then every
// command fails to load its register hook. Said as what it is, with its fix, at link time, in
// the load failure and in doctor.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CordonError, ERROR_CODES } from '../errors/index.js';
import { registerTargets } from './hook-targets.js';

/** The `main` and `exports` entry of a package.json that name one file (`"./dist/index.js"`, `{".": {"import": "…"}}`). */
function exportTargets(pjson: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (typeof pjson.main === 'string') out.push(pjson.main);
  let dot: unknown = pjson.exports;
  if (dot && typeof dot === 'object' && !Array.isArray(dot) && '.' in dot) dot = (dot as Record<string, unknown>)['.'];
  if (typeof dot === 'string') out.push(dot);
  else if (dot && typeof dot === 'object' && !Array.isArray(dot)) {
    for (const key of ['import', 'require', 'default']) {
      const value = (dot as Record<string, unknown>)[key];
      if (typeof value === 'string') out.push(value);
    }
  }
  return out;
}

/**
 * The entry files the plugin package at `root` names that do not exist, as absolute paths: its
 * `cordon:register` hook modules, its `main` and its `exports` entry. `[]` when all exist, or when
 * its package.json cannot be read (that is said elsewhere).
 */
export function missingEntryFiles(root: string): string[] {
  let pjson: Record<string, unknown>;
  try {
    pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return [];
  }
  if (!pjson || typeof pjson !== 'object') return [];
  const targets = [...registerTargets(pjson as { oclif?: { hooks?: Record<string, unknown> } }).map((t) => t.target), ...exportTargets(pjson)];
  return [...new Set(targets.map((t) => resolve(root, t)))].filter((file) => !existsSync(file));
}

/** What to do about an unbuilt linked checkout: build it, or unlink it. */
export function unbuiltFix(name: string, root: string): string {
  return `build it (\`npm run build\` in ${root}), or unlink it (\`cordon plugins unlink ${name}\`)`;
}

/** `it is linked from <root>, which is not built: <file> does not exist`. */
export function unbuiltMessage(root: string, missing: readonly string[]): string {
  return `it is linked from ${root}, which is not built: ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist`;
}

/**
 * The error to record for plugin package `name`, linked from `root`, whose register hook failed
 * to load, when an entry file of it is missing (a checkout never built): `CORDON_PLUGIN_INVALID`
 * saying so and how to fix it (`details`: `linked`, `root`, `missing`, `fix`). `undefined` when
 * every entry file exists (the original error stands).
 */
export function unbuiltLinkError(root: string, name: string): CordonError | undefined {
  const missing = missingEntryFiles(root);
  if (!missing.length) return undefined;
  const fix = unbuiltFix(name, root);
  return new CordonError(ERROR_CODES.PLUGIN_INVALID, `${unbuiltMessage(root, missing)}; ${fix}`, { details: { linked: true, root, missing, fix } });
}
