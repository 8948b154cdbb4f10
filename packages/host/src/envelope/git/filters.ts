import { realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type * as shlexModule from 'shlex';
import { lazyPackage } from '../../util/lazy-package.js';
import { statPrint } from '../evidence/fingerprint.js';
import { pathBytes, pathText } from '../path-text.js';
import { gitRecords, type GitInvocation } from './run-git.js';

const shlex = lazyPackage<typeof shlexModule>('shlex');

/**
 * Clean/smudge filter drivers (gitattributes(5) "filter"; Git LFS, git-crypt, nbstripout) carried
 * from arm time into the audit's private git directory.
 *
 * Git compares a filtered file through its clean filter, so an audit without the driver sees the
 * raw work-tree bytes: `arm` refuses a tree `git status` calls clean and a mere `touch` becomes a
 * whole-file change. The audit therefore runs the drivers configured **at arm time**, and only
 * them: their command strings are recorded at arm (a driver configured later is never written
 * into the private config), and so are the files each command names — its program resolved on
 * `PATH` and every word that names an existing file — by real path and stat fingerprint (type,
 * mode, size, mtime, ctime, inode; a ctime cannot be set back). At each audit a driver whose
 * files are not exactly those is left out and reported, so no code written after arming runs.
 *
 * Storage: the entries live in `GitRules.settings` (a string map in `.cordon/snapshot.json`):
 * `filter.<name>.clean|smudge|process` → the command, `filter.<name>.required` → `true`/`false`,
 * and `cordon.pin.filter.<name>.<kind>` → JSON `[[realPath, fingerprint], …]` (`[]` when the
 * program could not be found at arm time: such a driver never runs).
 */

/** The command kinds a driver may configure (git-config(1) `filter.<driver>.*`). */
export const FILTER_COMMANDS = ['clean', 'smudge', 'process'] as const;

const PIN_PREFIX = 'cordon.pin.';

/** Key/value pairs of `git config -z --get-regexp` output. */
export function configPairs(stdout: Buffer): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const record of stdout.toString('utf8').split('\0')) {
    if (!record) continue;
    const nl = record.indexOf('\n');
    pairs.push(nl === -1 ? [record, 'true'] : [record.slice(0, nl), record.slice(nl + 1)]);
  }
  return pairs;
}

/**
 * The settings entries that carry the filter drivers of `pairs` (the user's `filter.*`
 * configuration at arm time): commands, `required`, and the pins of each command (see the module
 * comment). `root` is the work-tree root (git runs filters there), `env` the arm-time
 * environment (its `PATH` resolves programs). Drivers whose name git could not write back into
 * a config file (a newline, a NUL) are left out.
 */
export function filterSettings(pairs: ReadonlyArray<readonly [string, string]>, root: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rawKey, value] of pairs) {
    const m = /^filter\.(.+)\.([a-z]+)$/s.exec(rawKey);
    if (!m) continue;
    const name = m[1]!;
    const kind = m[2]!.toLowerCase();
    if (/[\n\0]/.test(name) || value.includes('\0')) continue;
    if (kind === 'required') out[`filter.${name}.required`] = /^(true|yes|on|1)$/i.test(value) ? 'true' : 'false';
    else if ((FILTER_COMMANDS as readonly string[]).includes(kind) && value.trim() !== '') {
      out[`filter.${name}.${kind}`] = value;
      out[`${PIN_PREFIX}filter.${name}.${kind}`] = JSON.stringify(pinsOf(value, root, env) ?? []);
    }
  }
  return out;
}

/** A carried driver the audit will not run, and why (for the audit's notes and violations). */
export interface FilterProblem {
  readonly driver: string;
  /**
   * `absent`: the driver's program was not found when the envelope was armed (git cannot run it
   * either; its files compare as raw bytes for the user too). `changed`: a file the command
   * names is not the one it was at arm, or is gone — running it would run code from after arming.
   */
  readonly kind: 'absent' | 'changed';
  readonly reason: string;
}

/** What {@link carriedFilters} decided. */
export interface CarriedFilters {
  /** `[filter "<name>"]` sections for the private config (empty when no driver is usable). */
  readonly config: string;
  /** Names of the drivers written into `config`. */
  readonly usable: readonly string[];
  /** Carried drivers left out. */
  readonly problems: readonly FilterProblem[];
}

/**
 * The arm-time drivers of `settings` that may run now: every pinned file of every command is the
 * same file it was at arm (same real path for the same name, same fingerprint). A driver with one
 * command whose pins differ is left out whole and reported; git then compares its files as raw
 * bytes, as it does for a driver that is not configured.
 */
export function carriedFilters(settings: Readonly<Record<string, string>>, root: string, env: NodeJS.ProcessEnv): CarriedFilters {
  const drivers = new Map<string, Map<string, string>>();
  for (const [key, value] of Object.entries(settings)) {
    const m = /^filter\.(.+)\.(clean|smudge|process|required)$/s.exec(key);
    if (!m) continue;
    if (!drivers.has(m[1]!)) drivers.set(m[1]!, new Map());
    drivers.get(m[1]!)!.set(m[2]!, value);
  }
  const usable: string[] = [];
  const problems: FilterProblem[] = [];
  const sections: string[] = [];
  for (const [name, entries] of [...drivers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    let problem: Omit<FilterProblem, 'driver'> | undefined;
    for (const kind of FILTER_COMMANDS) {
      const command = entries.get(kind);
      if (command === undefined || problem) continue;
      problem = pinProblem(command, settings[`${PIN_PREFIX}filter.${name}.${kind}`], root, env);
    }
    if (problem) {
      problems.push({ driver: name, ...problem });
      continue;
    }
    usable.push(name);
    sections.push(`[filter "${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`);
    for (const kind of [...FILTER_COMMANDS, 'required'] as const) {
      const value = entries.get(kind);
      if (value !== undefined) sections.push(`\t${kind} = ${configQuote(value)}`);
    }
  }
  return { config: sections.length > 0 ? `${sections.join('\n')}\n` : '', usable, problems };
}

/** A git config value in double quotes (git-config(1) "Syntax"). */
export function configQuote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;
}

/** Why `command` may not run now given its arm-time `pinned` JSON, or undefined when it may. */
function pinProblem(command: string, pinned: string | undefined, root: string, env: NodeJS.ProcessEnv): Omit<FilterProblem, 'driver'> | undefined {
  let then: Array<[string, string]>;
  try {
    then = JSON.parse(pinned ?? 'null') as Array<[string, string]>;
  } catch {
    then = [];
  }
  const shown = JSON.stringify(command);
  if (!Array.isArray(then) || then.length === 0) return { kind: 'absent', reason: `the program of ${shown} was not found when the envelope was armed` };
  const now = pinsOf(command, root, env);
  const changed = (why: string) => ({ kind: 'changed' as const, reason: `${why} (command ${shown})` });
  if (!now) return changed('its program is not found now');
  const before = new Map(then.map(([path, print]) => [path, print]));
  for (const [path, print] of now) {
    if (!before.has(path)) return changed(`${path} is not a file its command named when the envelope was armed`);
    if (before.get(path) !== print) return changed(`${path} changed after the envelope was armed`);
  }
  if (now.length !== then.length) return changed('a file its command named when the envelope was armed is gone');
  return undefined;
}

/**
 * `[realPath, fingerprint]` of the program of `command` (its first shell word, looked up on
 * `PATH` unless it holds a `/`, else relative to `root`) and of every other word naming an
 * existing file. `undefined` when the program cannot be found or the command does not split.
 */
function pinsOf(command: string, root: string, env: NodeJS.ProcessEnv): Array<[string, string]> | undefined {
  let words: string[];
  try {
    words = shlex().split(command);
  } catch {
    return undefined;
  }
  if (words.length === 0) return undefined;
  const program = findProgram(words[0]!, root, env.PATH ?? '');
  if (!program) return undefined;
  const pins: Array<[string, string]> = [pin(program)];
  for (const word of words.slice(1)) {
    if (word === '' || word.includes('%')) continue;
    const file = isAbsolute(word) ? word : join(root, word);
    if (isFile(file)) pins.push(pin(file));
  }
  return pins;
}

function pin(file: string): [string, string] {
  const real = realpathSync(file);
  return [real, statPrint(real) ?? 'missing'];
}

function findProgram(word: string, root: string, path: string): string | undefined {
  if (word.includes('/')) {
    const file = isAbsolute(word) ? word : join(root, word);
    return isFile(file) ? file : undefined;
  }
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const file = join(isAbsolute(dir) ? dir : join(root, dir), word);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function isExecutableFile(file: string): boolean {
  try {
    const st = statSync(file);
    return st.isFile() && (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * `settings` key arming sets to `true` when any attribute source in force (a tracked
 * `.gitattributes`, `info/attributes`, the global attributes file) mentions `filter`: only then
 * does a check ask git which filter its changed paths use ({@link filterAttributes}).
 */
export const FILTER_ATTRIBUTES_KEY = 'cordon.attributes.filter';

/** Whether an attributes file's text may assign a filter (a doubtful mention counts). */
export function mentionsFilter(text: string | null): boolean {
  return text !== null && /filter/.test(text);
}

/**
 * The `filter` attribute of each of `paths` (`git check-attr -z --stdin filter` through `inv`):
 * path → driver name, for paths whose attribute names one (not unset or unspecified).
 */
export async function filterAttributes(inv: GitInvocation, paths: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (paths.length === 0) return out;
  const fields: string[] = [];
  const input = Buffer.concat(paths.flatMap((p) => [pathBytes(p), Buffer.of(0)]));
  await gitRecords(inv, ['check-attr', '-z', '--stdin', 'filter'], (r) => fields.push(pathText(r)), { input });
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const value = fields[i + 2]!;
    if (value !== 'unspecified' && value !== 'unset' && value !== 'set') out.set(fields[i]!, value);
  }
  return out;
}
