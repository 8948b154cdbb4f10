import { spawnSync } from 'node:child_process';
import { relative } from 'node:path';
import type { HookCommand } from '@cordon/plugin-api';
import { whichIn } from './files.js';

/**
 * What a person should know before a project's agent config holds cordon's hooks: each config
 * file git tracks (teammates get the hook with their next pull, and need `cordon` on their
 * `PATH`), and a bare `cordon` that is not on this machine's `PATH` (the hooks could not start
 * here either). `git ls-files --error-unmatch` decides "tracked"; no git, or not a repository,
 * warns about nothing tracked.
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
  return warnings;
}
