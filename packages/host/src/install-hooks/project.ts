import { spawnSync } from 'node:child_process';
import { isAbsolute, relative } from 'node:path';
import type { HookCommand } from '@cordon/plugin-api';
import { whichIn } from './files.js';

/**
 * What a person should know before a project's agent config holds cordon's hooks: each config
 * file git tracks (teammates get the hook with their next pull, and need `cordon` on their
 * `PATH`), and a bare `cordon` that is not on this machine's `PATH` (the hooks could not start
 * here either), and each file git neither tracks nor ignores: commit it, or add it to
 * `.git/info/exclude`, since `cordon arm` refuses a work tree with an untracked file (and a file
 * with a `--command` path of this machine belongs out of git). `git ls-files --error-unmatch`
 * decides "tracked", `git check-ignore` "ignored"; no git, or not a repository, warns about
 * neither.
 */
export function projectWarnings(paths: readonly string[], projectDir: string, command: HookCommand, env: NodeJS.ProcessEnv = process.env): string[] {
  const warnings: string[] = [];
  const tracked = paths.filter((path) => {
    const r = spawnSync('git', ['ls-files', '--error-unmatch', '--', relative(projectDir, path)], { cwd: projectDir, stdio: 'ignore', env: { ...env, GIT_OPTIONAL_LOCKS: '0' } });
    return r.status === 0;
  });
  const bare = command.argv[0] === 'cordon';
  if (tracked.length) {
    warnings.push(
      `${tracked.join(', ')} ${tracked.length === 1 ? 'is' : 'are'} tracked by git: once committed, everyone working in this project runs ${bare ? '`cordon hook`, so each of them needs cordon on PATH (npm install -g @cordon/host)' : `\`${command.argv[0]}\`, a path on this machine only; prefer the default portable command`}`,
    );
  }
  if (bare && !whichIn('cordon', env.PATH, process.platform, env.PATHEXT)) warnings.push('the hooks run `cordon` from PATH, and there is none on this PATH: install it (npm install -g @cordon/host) or the hooks cannot start here');
  const inside = (path: string) => !relative(projectDir, path).startsWith('..') && !isAbsolute(relative(projectDir, path));
  const untracked = paths.filter((path) => inside(path) && !tracked.includes(path) && !ignoredByGit(path, projectDir, env));
  const prefix = untracked.length ? gitPrefix(projectDir, env) : undefined;
  if (untracked.length && prefix !== undefined) {
    const excludes = untracked.map((path) => `/${prefix}${relative(projectDir, path).split('\\').join('/')}`);
    const one = untracked.length === 1;
    const what = one ? `${untracked[0]} is` : `${untracked.join(', ')} are`;
    const share = bare ? `commit ${one ? 'it' : 'them'} to give everyone in this project the hooks (each needs cordon on PATH), or` : `${one ? 'it runs' : 'they run'} \`${command.argv[0]}\`, a path on this machine only (--command), so`;
    warnings.push(
      `${what} not tracked by git: ${share} keep ${one ? 'it' : 'them'} out of git by adding ${excludes.join(' and ')} to .git/info/exclude (git rev-parse --git-path info/exclude names the file); until then \`cordon arm\` and \`cordon run\` refuse the work tree as not clean`,
    );
  }
  return warnings;
}

/** True when git ignores `path` (a .gitignore, info/exclude or the global excludes file): it cannot make the work tree unclean. */
function ignoredByGit(path: string, projectDir: string, env: NodeJS.ProcessEnv): boolean {
  const r = spawnSync('git', ['check-ignore', '-q', '--no-index', '--', relative(projectDir, path)], { cwd: projectDir, stdio: 'ignore', env: { ...env, GIT_OPTIONAL_LOCKS: '0' } });
  return r.status === 0;
}

/** The project directory's path inside its git work tree (`sub/dir/`, `` at the root), or undefined outside a repository. */
function gitPrefix(projectDir: string, env: NodeJS.ProcessEnv): string | undefined {
  const r = spawnSync('git', ['rev-parse', '--show-prefix'], { cwd: projectDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: { ...env, GIT_OPTIONAL_LOCKS: '0' } });
  return r.status === 0 ? r.stdout.trim() : undefined;
}
