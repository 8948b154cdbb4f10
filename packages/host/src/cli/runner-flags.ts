import { Flags } from '@oclif/core';
import type { AgentRunner } from '@cordon/plugin-api';
import type { CordonHost } from '../bus/host.js';
import type { AttemptResult } from '../envelope/attempt/attempt.js';
import { RUNNER_NUMBERS, type RunnerInput } from '../envelope/attempt/options.js';
import { numberFlag } from './number-flag.js';
import type { AttemptRun } from '../envelope/attempt/record.js';
import type { AuditRecord } from '../envelope/audit/record.js';
import type { Phase } from '../envelope/phases.js';
import { CordonError, ERROR_CODES, wrapPluginError } from '../errors/index.js';

/**
 * Flags of `cordon run` beyond the arm flags (the BEKO2210/SkillQuarry cordon). Numbers are read
 * by the one parser of numeric flags in {@link RUNNER_NUMBERS}' ranges (cli/number-flag.ts);
 * what an agent supports is `resolveRunnerSettings`' to say.
 */
export const runnerFlags = {
  agent: Flags.string({ description: 'Agent to run: the name of a registered runner (claude-code, codex, gemini)', default: 'claude-code', helpValue: 'NAME' }),
  'agent-bin': Flags.string({ description: "The agent's executable (default: the runner's command name, found on PATH)", helpValue: 'PATH' }),
  'max-turns': numberFlag(RUNNER_NUMBERS['max-turns'])({ description: 'Agentic turns per attempt (Claude Code; default 30)', helpValue: 'N' }),
  timeout: numberFlag(RUNNER_NUMBERS.timeout)({ description: 'Seconds one attempt may run before it is ended (default 1800, at most 604800; fractions allowed)', helpValue: 'S' }),
  'max-budget-usd': numberFlag(RUNNER_NUMBERS['max-budget-usd'])({ description: 'Spend ceiling per attempt in US dollars (Claude Code)', helpValue: 'X' }),
  model: Flags.string({ description: "Model name or alias passed to the agent", helpValue: 'M' }),
  effort: Flags.string({ description: "Effort level passed to the agent (Claude Code: low, medium, high, xhigh, max; Codex: none, minimal, low, medium, high, xhigh)", helpValue: 'E' }),
  'agent-output-cap': numberFlag(RUNNER_NUMBERS['agent-output-cap'])({ description: 'Bytes the agent may print per stream before the attempt is an engine error (default 4194304)', helpValue: 'BYTES' }),
};

/** Parsed runner flags to a {@link RunnerInput}. */
export function runnerInputFromFlags(flags: Record<string, unknown>): RunnerInput {
  const number = (k: string) => flags[k] as number | undefined;
  return {
    binary: flags['agent-bin'] as string | undefined,
    maxTurns: number('max-turns'),
    timeoutSeconds: number('timeout'),
    maxBudgetUsd: number('max-budget-usd'),
    model: flags.model as string | undefined,
    effort: flags.effort as string | undefined,
    outputCap: number('agent-output-cap'),
  };
}

/**
 * The runner registered as `name`, loaded. Throws `CORDON_REGISTRY_MISSING` (exit 2) listing the
 * registered runners; a plugin whose `load` fails surfaces as `CORDON_PLUGIN_ERROR`.
 */
export async function loadRunner(host: CordonHost, name: string): Promise<AgentRunner> {
  if (!host.runners.get(name) && host.dialects.get(name)) {
    // The agent's plugin is installed but brings no headless runner (Aider has no hook API: it is wrapped whole).
    const how = name === 'aider' ? `: wrap it instead (\`cordon wrap -- aider --message "…"\`), then check the result with \`cordon check\`` : '';
    throw new CordonError(ERROR_CODES.REGISTRY_MISSING, `runners: the ${name} plugin is installed but cannot run headless attempts (runners: ${host.runners.list().map((r) => r.entry.name).join(', ') || 'none'})${how}`, {
      details: { registry: 'runners', name, known: host.runners.list().map((r) => r.entry.name) },
    });
  }
  const entry = host.runners.require(name);
  const plugin = host.runners.list().find((r) => r.entry.name === name)?.plugin ?? name;
  try {
    return await entry.load();
  } catch (error) {
    throw wrapPluginError(plugin, 'runners', error);
  }
}

/** What `cordon run --json` and `cordon resume --json` print. */
export interface AttemptReport {
  readonly phase: Phase;
  readonly attempt: number;
  readonly max_attempts: number;
  /** The process exit code: 0 accepted, 3 rejected, 4 engine error, 128 + n interrupted. */
  readonly exit_code: number;
  readonly run: AttemptRun;
  /** The audit after the attempt; null when it was interrupted. */
  readonly audit: AuditRecord | null;
}

/** The `--json` shape of an attempt result. */
export function attemptReport(result: AttemptResult): AttemptReport {
  return { phase: result.state.phase, attempt: result.state.attempt, max_attempts: result.state.max_attempts, exit_code: result.exitCode, run: result.run, audit: result.audit };
}
