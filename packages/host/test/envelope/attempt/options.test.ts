import type { AgentRunner } from '@cordon/plugin-api';
import { describe, expect, it } from 'vitest';
import { resolveRunnerSettings, runnerSettingsProblem } from '../../../src/envelope/attempt/options.js';

const base = { prompt: (_: unknown, s: string) => s, launch: () => ({ args: [] }), parse: () => ({ ok: true }) };
const claude: AgentRunner = { ...base, title: 'Claude Code', binary: 'claude', supports: { maxTurns: { default: 30 }, maxBudgetUsd: true, model: true, effort: ['low', 'high'] } };
const codex: AgentRunner = { ...base, title: 'Codex', binary: 'codex', supports: { maxTurns: false, maxBudgetUsd: false, model: true, effort: [] } };

describe('runner settings (the BEKO2210/SkillQuarry cordon; defect C8)', () => {
  it('defaults: the runner binary, 1800 s, 4 MiB, its default turns', () => {
    expect(resolveRunnerSettings(claude, {})).toEqual({ binary: 'claude', timeout_seconds: 1800, output_cap: 4194304, max_turns: 30, max_budget_usd: null, model: null, effort: null });
    expect(resolveRunnerSettings(codex, {}).max_turns).toBeNull();
  });

  it('keeps what is given', () => {
    expect(resolveRunnerSettings(claude, { binary: '/opt/claude', timeoutSeconds: 0.5, outputCap: 64, maxTurns: 2, maxBudgetUsd: 2, model: 'sonnet', effort: 'high' })).toEqual({
      binary: '/opt/claude', timeout_seconds: 0.5, output_cap: 64, max_turns: 2, max_budget_usd: 2, model: 'sonnet', effort: 'high',
    });
  });

  it.each([
    [{ timeoutSeconds: 0 }, '--timeout: expected a number of seconds greater than 0 and at most 604800 but received: 0'],
    [{ timeoutSeconds: Number.NaN }, '--timeout: expected a number of seconds greater than 0 and at most 604800 but received: NaN'],
    [{ timeoutSeconds: Number.POSITIVE_INFINITY }, '--timeout: expected a number of seconds greater than 0 and at most 604800 but received: Infinity'],
    // A Node timer holds at most about 24.8 days: a longer limit would end the attempt at once.
    [{ timeoutSeconds: 30 * 24 * 3600 }, '--timeout: expected a number of seconds greater than 0 and at most 604800 but received: 2592000'],
    [{ maxBudgetUsd: 0 }, '--max-budget-usd: expected a number of US dollars greater than 0 but received: 0'],
    [{ maxBudgetUsd: Number.NaN }, '--max-budget-usd: expected a number of US dollars greater than 0 but received: NaN'],
    [{ maxTurns: 0 }, '--max-turns: expected an integer from 1 to 9007199254740991 but received: 0'],
    [{ model: ' ' }, '--model must not be empty'],
    [{ effort: 'turbo' }, '--effort must be one of low, high for Claude Code (got "turbo")'],
    [{ binary: '' }, '--agent-bin must be a non-empty path or command name'],
    [{ outputCap: 0 }, '--agent-output-cap: expected a whole number of bytes from 1 to 9007199254740991 but received: 0'],
  ])('refuses %j: %s (exit 2)', (input, message) => {
    expect(() => resolveRunnerSettings(claude, input)).toThrow(expect.objectContaining({ code: 'CORDON_BAD_INPUT', exit: 2, message }));
  });

  it('refuses a flag the agent cannot honour instead of dropping it', () => {
    expect(() => resolveRunnerSettings(codex, { maxTurns: 5 })).toThrow('--max-turns: Codex has no turn limit; bound the attempt with --timeout');
    expect(() => resolveRunnerSettings(codex, { maxBudgetUsd: 1 })).toThrow('--max-budget-usd: Codex has no spend limit');
    expect(() => resolveRunnerSettings(codex, { effort: 'high' })).toThrow('--effort: Codex has no effort levels');
  });

  it('validates stored settings', () => {
    const good = resolveRunnerSettings(claude, {});
    expect(runnerSettingsProblem(good)).toBeUndefined();
    expect(runnerSettingsProblem(null)).toMatch(/not armed by `cordon run`/);
    expect(runnerSettingsProblem({ ...good, extra: 1 })).toBe('config runner has unknown key "extra"');
    expect(runnerSettingsProblem({ ...good, timeout_seconds: Number.NaN })).toBe('config runner timeout_seconds is invalid');
    expect(runnerSettingsProblem({ ...good, max_turns: 0 })).toBe('config runner max_turns is invalid');
  });
});
