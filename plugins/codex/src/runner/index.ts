import type { AgentRunner, LaunchPlan, LaunchRequest } from '@cordon/plugin-api';
import { parseCodexEvents } from './parse.js';

/** `model_reasoning_effort` values of Codex 0.171.0 (its `ReasoningEffort`: none … xhigh). */
export const CODEX_EFFORT_LEVELS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

/**
 * Arguments of one non-interactive attempt (`codex exec --help`, Codex 0.171.0):
 *
 * ```
 * codex exec --json --ephemeral --sandbox workspace-write [-m <M>] [-c model_reasoning_effort="<E>"] -
 * ```
 *
 * `-` reads the prompt from stdin (never in `ps`). `--json` prints one event per line (the
 * report). `--ephemeral` keeps no session files: each attempt is fresh, like Claude's
 * `--no-session-persistence`. `workspace-write` lets the agent edit the repository and run
 * commands inside it without asking, the counterpart of Claude's `acceptEdits`; the user's own
 * `config.toml` still decides everything else. Codex has no turn or spend limit: cordon's
 * `--timeout` bounds the attempt.
 */
export function codexArgs(request: LaunchRequest): string[] {
  const { limits } = request;
  const args = ['exec', '--json', '--ephemeral', '--sandbox', 'workspace-write'];
  if (limits.model !== null) args.push('-m', limits.model);
  if (limits.effort !== null) args.push('-c', `model_reasoning_effort="${limits.effort}"`);
  args.push('-');
  return args;
}

/** The `codex exec` runner. */
export const runner: AgentRunner = {
  title: 'Codex',
  binary: 'codex',
  install: 'npm install -g @openai/codex',
  supports: { maxTurns: false, maxBudgetUsd: false, model: true, effort: CODEX_EFFORT_LEVELS },
  prompt(_brief, standard) {
    return `${standard}\nYou run non-interactively in the workspace-write sandbox: nobody will answer questions, so finish the task or stop.\n`;
  },
  launch(request): LaunchPlan {
    return { args: codexArgs(request), stdin: request.prompt };
  },
  parse: parseCodexEvents,
};
