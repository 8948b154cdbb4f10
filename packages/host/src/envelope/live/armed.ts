import { lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readRegularFile } from '../../io/safe-read.js';
import { isPlainObject, policyProblem, type Policy } from '../policy/policy.js';
import { CORDON_DIR } from '../state/dir-name.js';

/** Largest `.cordon/config.json` the hook reads: 256 globs of 512 characters, a 16384-character label and 8 verifiers fit many times over. */
export const LIVE_CONFIG_MAX_BYTES = 1024 * 1024;

/** The armed envelope a tool call's writes are judged against. */
export interface LiveEnvelope {
  /** Work-tree root the envelope was armed in (`git rev-parse --show-toplevel`, links resolved). */
  readonly root: string;
  readonly policy: Policy;
}

/**
 * The work tree holding `dir` and whether an envelope is armed there, found without git (the hook
 * must not start a process): walks up from `dir` (absolute, links resolved) and stops at the first
 * directory holding `.git` (a directory, or the file of a linked work tree or submodule), as git
 * finds a work tree's top. `armed` is true when that directory also holds a `.cordon/` directory
 * (not a link). Undefined outside every work tree. Two `lstat`s per level, nothing read.
 */
export function findWorkTree(dir: string): { readonly root: string; readonly armed: boolean } | undefined {
  let current = dir;
  for (;;) {
    if (exists(join(current, '.git'))) return { root: current, armed: isDirectory(join(current, CORDON_DIR)) };
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/**
 * The live envelope armed at work-tree root `root`, or undefined when none is armed there or it
 * is not live (armed without `--live` and not by `cordon run`). Reads `.cordon/config.json` only,
 * with `readRegularFile` (never through a link, regular files only, at most
 * {@link LIVE_CONFIG_MAX_BYTES}, non-blocking), and validates the fields it uses: the policy as
 * `check` does (`policyProblem`), `live` and `repo.root`. The whole file is `check`'s to verify
 * (its hash is in `state.json`); the hook does not load the store for it.
 * An envelope armed in another place (`config.repo.root` is not `root`: a moved tree) is not
 * used, as `check` refuses it. Throws when the file is unreadable, malformed or damaged; the
 * caller lets the call proceed and logs why (the final `check` refuses a damaged envelope).
 */
export function readLiveEnvelope(root: string): LiveEnvelope | undefined {
  const text = readRegularFile(join(root, CORDON_DIR, 'config.json'), { maxBytes: LIVE_CONFIG_MAX_BYTES }).toString('utf8');
  const config: unknown = JSON.parse(text);
  if (!isPlainObject(config)) throw new Error('.cordon/config.json is not a JSON object');
  if (config.live !== true) return undefined;
  const problem = policyProblem(config.policy);
  if (problem) throw new Error(`.cordon/config.json: ${problem}`);
  if (!isPlainObject(config.repo) || config.repo.root !== root) return undefined;
  return { root, policy: config.policy as Policy };
}

function exists(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

function isDirectory(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
