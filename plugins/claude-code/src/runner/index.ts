import type { AgentRunner, LaunchPlan, LaunchRequest } from '@cordon/plugin-api';
import { parseClaudeResult } from './parse.js';

/** Effort levels `claude --help` lists for `--effort` (Claude Code 2.1.332). */
export const CLAUDE_EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

/** Default `--max-turns` (the BEKO2210/SkillQuarry cordon: 30). */
export const DEFAULT_MAX_TURNS = 30;

/**
 * Arguments of one headless attempt (the BEKO2210/SkillQuarry cordon, with the prompt moved to stdin):
 *
 * ```
 * claude -p --output-format json --no-session-persistence --max-turns <N>
 *        --permission-mode acceptEdits [--max-budget-usd <X>] [--model <M>] [--effort <E>]
 * ```
 *
 * `-p` without a prompt argument reads the prompt from stdin, so it never shows in `ps`.
 * `acceptEdits` approves file edits without asking; other tools (Bash) run only where the
 * user's own Claude Code settings allow them, since headless `-p` denies anything that would ask.
 * `--no-session-persistence`: every attempt is a fresh session; `resume` carries context in the
 * prompt, not in a Claude session.
 */
export function claudeArgs(request: LaunchRequest): string[] {
  const { limits } = request;
  const args = ['-p', '--output-format', 'json', '--no-session-persistence', '--max-turns', String(limits.maxTurns ?? DEFAULT_MAX_TURNS), '--permission-mode', 'acceptEdits'];
  if (limits.maxBudgetUsd !== null) args.push('--max-budget-usd', String(limits.maxBudgetUsd));
  if (limits.model !== null) args.push('--model', limits.model);
  if (limits.effort !== null) args.push('--effort', limits.effort);
  return args;
}

/** The `claude -p` runner. */
export const runner: AgentRunner = {
  title: 'Claude Code',
  binary: 'claude',
  install: 'npm install -g @anthropic-ai/claude-code',
  supports: { maxTurns: { default: DEFAULT_MAX_TURNS }, maxBudgetUsd: true, model: true, effort: CLAUDE_EFFORT_LEVELS },
  prompt(_brief, standard) {
    return `${standard}\nFile edits are accepted automatically in this session; other tools run only where your Claude Code settings allow them.\n`;
  },
  launch(request): LaunchPlan {
    return { args: claudeArgs(request), stdin: request.prompt };
  },
  parse: parseClaudeResult,
};
