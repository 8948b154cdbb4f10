import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentOutput, AttemptBrief, RunnerLimits } from '@cordon/plugin-api';
import { describe, expect, it } from 'vitest';
import { renderBrief } from '../../../../packages/host/src/envelope/attempt/prompt.js';
import { claudeArgs, runner } from '../../src/runner/index.js';
import { parseClaudeResult } from '../../src/runner/parse.js';

// Outputs captured from the real Claude Code 2.1.332 (`claude -p --output-format json`) against
// the fake Anthropic server (test/support/fake-models), temp paths scrubbed.
const fixture = (name: string): AgentOutput => JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', `${name}.json`), 'utf8'));

const none: RunnerLimits = { maxTurns: null, maxBudgetUsd: null, model: null, effort: null };

describe('claude -p arguments (the BEKO2210/SkillQuarry cordon)', () => {
  it('minimal: no budget, model or effort flags (H10); the prompt is not an argument', () => {
    expect(claudeArgs({ prompt: 'TASK-TEXT', limits: { ...none, maxTurns: 30 }, cwd: '/r' })).toEqual([
      '-p', '--output-format', 'json', '--no-session-persistence', '--max-turns', '30', '--permission-mode', 'acceptEdits',
    ]);
  });

  it('every optional flag, in order', () => {
    expect(claudeArgs({ prompt: 'p', limits: { maxTurns: 7, maxBudgetUsd: 2, model: 'sonnet', effort: 'high' }, cwd: '/r' })).toEqual([
      '-p', '--output-format', 'json', '--no-session-persistence', '--max-turns', '7', '--permission-mode', 'acceptEdits',
      '--max-budget-usd', '2', '--model', 'sonnet', '--effort', 'high',
    ]);
  });

  it('delivers the prompt on stdin and never in argv', () => {
    const plan = runner.launch({ prompt: 'secret task words', limits: { ...none, maxTurns: 3 }, cwd: '/r' });
    expect(plan.stdin).toBe('secret task words');
    expect(plan.args.join(' ')).not.toContain('secret');
  });

  it('declares what claude enforces itself', () => {
    expect(runner.binary).toBe('claude');
    expect(runner.supports).toEqual({ maxTurns: { default: 30 }, maxBudgetUsd: true, model: true, effort: ['low', 'medium', 'high', 'xhigh', 'max'] });
  });
});

describe('the Claude Code prompt', () => {
  const brief: AttemptBrief = {
    task: 'Make src/app.py print bye',
    allow: ['src/**'],
    deny: ['src/secrets/**'],
    limits: { max_files: 3, max_added_lines: 4, max_deleted_lines: 5, max_working_bytes: 6, max_binary_files: 7 },
    allowCommits: false,
    verifiers: ['npm test'],
    attempt: 1,
    maxAttempts: 3,
  };

  it('is the host brief followed by a line about the permission mode', () => {
    const standard = renderBrief(brief);
    const prompt = runner.prompt(brief, standard);
    expect(prompt.startsWith(standard)).toBe(true);
    expect(prompt.slice(standard.length)).toBe('\nFile edits are accepted automatically in this session; other tools run only where your Claude Code settings allow them.\n');
  });
});

describe('reading the result object', () => {
  it('success: session id, turns, cost, duration, tokens and the final message', () => {
    const report = parseClaudeResult(fixture('success'));
    expect(report).toMatchObject({ ok: true, status: 'success', turns: 2, message: 'All done.', permissionDenials: 0 });
    expect(report.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(report.costUsd).toBeGreaterThan(0);
    expect(report.durationMs).toBeGreaterThan(0);
    expect(report.inputTokens).toBeGreaterThan(0);
    expect(report.outputTokens).toBeGreaterThan(0);
    expect(report.error).toBeUndefined();
  });

  it('error_max_turns (exit 1) is a failure with the subtype as status and the errors as text', () => {
    const out = fixture('error-max-turns');
    expect(out.exitCode).toBe(1);
    expect(parseClaudeResult(out)).toMatchObject({ ok: false, status: 'error_max_turns', error: 'Reached maximum number of turns (1)' });
  });

  it('error_max_budget_usd is a failure', () => {
    expect(parseClaudeResult(fixture('error-max-budget'))).toMatchObject({ ok: false, status: 'error_max_budget_usd', error: 'Reached maximum budget ($0.0001)' });
  });

  it('an API error is is_error with subtype success: a failure whose status is the terminal reason', () => {
    const report = parseClaudeResult(fixture('api-error-403'));
    expect(report.ok).toBe(false);
    expect(report.status).toBe('api_error');
    expect(report.error).toContain('API Error: 403 fake failure 403');
  });

  it('the same object with exit 0 (anthropics/claude-code#79500) still reads as a failure', () => {
    const out = fixture('api-error-403');
    expect(parseClaudeResult({ ...out, exitCode: 0 }).ok).toBe(false);
  });

  it('counts permission denials of a successful run', () => {
    expect(parseClaudeResult(fixture('permission-denied'))).toMatchObject({ ok: true, permissionDenials: 1 });
  });

  it('no result object, garbage, or a non-result JSON line: not ok, never a throw', () => {
    for (const stdout of ['', 'not json', '{"type":"assistant"}', '[1,2]', '{"type":"result"']) {
      const report = parseClaudeResult({ exitCode: 0, signal: null, stdout, stderr: '' });
      expect(report.ok).toBe(false);
      expect(report.error).toBe('printed no result object on stdout');
      expect(report.unreported).toBe(true);
    }
  });

  it('finds the result object on the last line after other output', () => {
    const result = JSON.parse(fixture('success').stdout);
    const report = parseClaudeResult({ exitCode: 0, signal: null, stdout: `warming up\n${JSON.stringify({ type: 'system' })}\n${JSON.stringify(result)}\n`, stderr: '' });
    expect(report).toMatchObject({ ok: true, sessionId: result.session_id });
  });

  it('an error subtype with is_error false is still a failure', () => {
    const report = parseClaudeResult({ exitCode: 0, signal: null, stdout: JSON.stringify({ type: 'result', subtype: 'error_during_execution', is_error: false, errors: ['tool crashed'] }), stderr: '' });
    expect(report).toMatchObject({ ok: false, status: 'error_during_execution', error: 'tool crashed' });
  });
});
