import { readdirSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { splitCommand } from '../verify/spec.js';
import { absPath } from './fs-path.js';
import { statPrint } from './fingerprint.js';
import type { IgnoredChange } from './untracked.js';

/**
 * Ignored files a verifier runs that `--allow-ignored` lets change ("allowed is not
 * invisible"). With the typical `--allow-ignored 'node_modules/**'` an agent can rewrite
 * `node_modules/.bin/tape` to print success, and the audit, which does not compare allowed
 * ignored paths, would accept a broken change. Arming therefore fingerprints the executables a
 * verifier may run that an `--allow-ignored` glob covers, and every check reports those that
 * changed (`allowed_ignored_changes` and a note), without rejecting: they are allowed.
 *
 * Covered: every entry of the directories package managers put on a script's `PATH`
 * (`node_modules/.bin`, as `npm run` does, npm-run-script(1); a Python virtual environment's
 * `bin`/`Scripts`, PEP 405), each verifier's executable when it names a path inside the work
 * tree, and for each of these that is a symbolic link, the file it resolves to inside the work
 * tree (`node_modules/.bin/tape` → `node_modules/tape/bin/tape`). Not covered: the modules such
 * an executable loads (`node_modules/tape/lib/*.js`); `--allow-ignored` gives those away.
 */
export const TOOL_DIRS = ['node_modules/.bin', '.venv/bin', 'venv/bin', '.venv/Scripts', 'venv/Scripts'] as const;
/** Most executables fingerprinted (a `node_modules/.bin` of a large project holds a few hundred). */
const MAX_TOOLS = 4000;

/** Work-tree relative path (with `/`) of `abs` when it lies inside `root`, else undefined. */
function inside(root: string, abs: string): string | undefined {
  const rel = relative(root, abs);
  return rel === '' || rel.startsWith('..') || rel.startsWith(sep) ? undefined : rel.split(sep).join('/');
}

/** The candidates: tool directory entries and verifier executables inside the work tree (relative, `/`). */
function candidates(root: string, verifiers: readonly string[]): string[] {
  const out = new Set<string>();
  for (const dir of TOOL_DIRS) {
    let names: string[];
    try {
      names = readdirSync(absPath(root, dir));
    } catch {
      continue;
    }
    for (const name of names.sort()) out.add(`${dir}/${name}`);
  }
  for (const command of verifiers) {
    let argv0: string | undefined;
    try {
      argv0 = splitCommand(command)[0];
    } catch {
      continue;
    }
    if (argv0 === undefined || !/[/\\]/.test(argv0)) continue;
    const rel = inside(root, join(root, argv0));
    if (rel !== undefined) out.add(rel);
  }
  return [...out];
}

/**
 * Fingerprints of the verifier executables `allowed` (an `--allow-ignored` match) covers: path →
 * {@link statPrint}, plus each link's target inside the work tree. Taken at arm.
 */
export function printVerifierTools(root: string, verifiers: readonly string[], allowed: (rel: string) => boolean): Record<string, string> {
  const prints: Record<string, string> = {};
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return prints;
  }
  for (const rel of candidates(root, verifiers)) {
    if (Object.keys(prints).length >= MAX_TOOLS) break;
    if (!allowed(rel)) continue;
    const print = statPrint(absPath(root, rel));
    if (print === null) continue;
    prints[rel] = print;
    if (!print.startsWith('l:')) continue;
    try {
      const target = inside(realRoot, realpathSync(absPath(root, rel)));
      if (target !== undefined && allowed(target)) {
        const targetPrint = statPrint(absPath(root, target));
        if (targetPrint !== null) prints[target] = targetPrint;
      }
    } catch {
      // A dangling link: its own fingerprint is recorded.
    }
  }
  return prints;
}

/**
 * What changed among the recorded verifier executables since arm: `changed`/`removed` for a
 * recorded path, `new` for an allowed entry of a tool directory (or a link target) that was not
 * there. Sorted by path.
 */
export function verifierToolChanges(root: string, verifiers: readonly string[], allowed: (rel: string) => boolean, recorded: Readonly<Record<string, string>>): IgnoredChange[] {
  const now = printVerifierTools(root, verifiers, allowed);
  const changes: IgnoredChange[] = [];
  for (const [path, print] of Object.entries(recorded)) {
    const current = now[path] ?? statPrint(absPath(root, path));
    if (current === null) changes.push({ path, change: 'removed' });
    else if (current !== print) changes.push({ path, change: 'changed' });
  }
  for (const path of Object.keys(now)) if (!(path in recorded)) changes.push({ path, change: 'new' });
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
