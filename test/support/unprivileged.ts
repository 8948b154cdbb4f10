import { chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CORDON_BIN, runProcess, type RunResult } from './cli.js';
import { makeRepo } from './git.js';

/** The uid and gid of `nobody` on Debian. */
const NOBODY = 65534;

/** A repository and `cordon` runs where permission bits hold (see {@link unprivilegedRepo}). */
export interface UnprivilegedRepo {
  /** The repository's work tree. */
  readonly repo: string;
  /** Runs the built `cordon` with `args` in `repo`, every `CORDON_*` directory under `home`, `env` added, `input` on stdin. */
  cordon(args: readonly string[], env?: Record<string, string>, input?: string): Promise<RunResult>;
  /** Gives `nobody` what the test created under `path` since (a no-op when not root). */
  own(path: string): Promise<void>;
}

/**
 * Makes a repository with `files` committed under `root/home`, and a `cordon` that runs as
 * `nobody` (setpriv, util-linux) when the tests run as root: root reads any file and enters
 * any directory, so a test of what the check does with an unreadable path would see none.
 * Everything under `root` then belongs to `nobody`; `root` must be a fresh temporary directory.
 */
export async function unprivilegedRepo(root: string, files: Record<string, string>): Promise<UnprivilegedRepo> {
  const asRoot = process.getuid?.() === 0;
  const home = join(root, 'home');
  const dirs = { CORDON_DATA_DIR: join(home, 'data'), CORDON_CONFIG_DIR: join(home, 'config'), CORDON_CACHE_DIR: join(home, 'cache') };
  for (const d of [home, ...Object.values(dirs)]) mkdirSync(d, { recursive: true });
  const repo = makeRepo(join(home, 'repo'), files);
  const own = async (path: string) => {
    if (asRoot) await runProcess(['chown', '-R', `${NOBODY}:${NOBODY}`, path]);
  };
  if (asRoot) chownSync(root, NOBODY, NOBODY);
  await own(home);
  const env = { PATH: process.env.PATH, HOME: home, ...dirs, CORDON_SAMPLER: 'off' };
  const setpriv = asRoot ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'] : [];
  return {
    repo,
    own,
    cordon: (args, extra = {}, input) => runProcess([...setpriv, process.execPath, CORDON_BIN, ...args], { cwd: repo, env: { ...env, ...extra }, ...(input === undefined ? {} : { input }) }),
  };
}
