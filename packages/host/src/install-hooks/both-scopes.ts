import type { HookScope } from '@cordon/plugin-api';
import { posixQuote } from './quote/posix.js';

/**
 * What to say when cordon's hooks for `agent` are in both its user config and a project's: the
 * agent runs both (Claude Code merges hooks by command string, and the user scope's
 * `<node> <run.cjs>` is not the project's portable `cordon`), so every tool call reaches
 * `cordon hook` twice, is recorded twice, and the loop breaker counts it twice and fires early.
 * `message` names the other scope's files; `fix` is the uninstall of either scope, with
 * `--project-dir` when the project is not the current directory. Used by install-hooks (a
 * warning) and doctor (a problem).
 */
export function bothScopesProblem(agent: string, other: HookScope, otherPaths: readonly string[], projectDir: string | undefined, cwd = process.cwd()): { message: string; fix: string } {
  const where = other === 'user' ? 'its user config' : "this project's config";
  const project = projectDir !== undefined && projectDir !== cwd ? ` --project-dir ${posixQuote(projectDir)}` : '';
  const here = other === 'user' ? 'project' : 'user';
  const uninstall = (scope: HookScope) => `cordon uninstall-hooks --agent ${agent} --scope ${scope}${scope === 'project' ? project : ''} --write`;
  return {
    message: `cordon's hooks for ${agent} are also in ${where} (${otherPaths.join(', ')}): ${agent} runs both, so each tool call would be recorded twice and the loop breaker fires early`,
    fix: `remove one: \`${uninstall(other)}\` or \`${uninstall(here)}\``,
  };
}
