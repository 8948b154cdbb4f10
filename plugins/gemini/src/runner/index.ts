import type { AgentRunner, LaunchPlan, LaunchRequest } from '@cordon/plugin-api';
import { parseGeminiResult } from './parse.js';

/**
 * Arguments of one headless attempt (`gemini --help`, Gemini CLI 0.61.0):
 *
 * ```
 * gemini -p "" --output-format json --approval-mode auto_edit [-m <M>]
 * ```
 *
 * `-p` selects headless mode and is "appended to input on stdin", so an empty `-p` with the
 * prompt on stdin runs the prompt without it showing in `ps`. `auto_edit` approves the edit
 * tools, the counterpart of Claude's `acceptEdits`; headless Gemini then offers no shell tool
 * unless the user's policy allows one. Gemini CLI has no turn or spend flag: cordon's
 * `--timeout` bounds the attempt. The folder must be trusted (Gemini exits 55 otherwise).
 */
export function geminiArgs(request: LaunchRequest): string[] {
  const args = ['-p', '', '--output-format', 'json', '--approval-mode', 'auto_edit'];
  if (request.limits.model !== null) args.push('-m', request.limits.model);
  return args;
}

/** The `gemini -p` runner. */
export const runner: AgentRunner = {
  title: 'Gemini CLI',
  binary: 'gemini',
  install: 'npm install -g @google/gemini-cli',
  supports: { maxTurns: false, maxBudgetUsd: false, model: true, effort: [] },
  prompt(_brief, standard) {
    return `${standard}\nEdit tools are approved automatically in this headless session; nobody will answer questions, so finish the task or stop.\n`;
  },
  launch(request): LaunchPlan {
    return { args: geminiArgs(request), stdin: request.prompt };
  },
  parse: parseGeminiResult,
};
