import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentOutput, AttemptBrief, RunnerLimits } from '@cordon/plugin-api';
import { describe, expect, it } from 'vitest';
import { renderBrief } from '../../../../packages/host/src/envelope/attempt/prompt.js';
import { geminiArgs, runner } from '../../src/runner/index.js';
import { parseGeminiResult } from '../../src/runner/parse.js';

// Outputs captured from the real Gemini CLI 0.61.0 (`gemini -p "" --output-format json`) against the fake Gemini server.
const fixture = (name: string): AgentOutput => JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', `${name}.json`), 'utf8'));
const none: RunnerLimits = { maxTurns: null, maxBudgetUsd: null, model: null, effort: null };

describe('gemini -p arguments', () => {
  it('headless with an empty -p (the prompt comes on stdin), JSON output, auto_edit', () => {
    expect(geminiArgs({ prompt: 'p', limits: none, cwd: '/r' })).toEqual(['-p', '', '--output-format', 'json', '--approval-mode', 'auto_edit']);
    expect(geminiArgs({ prompt: 'p', limits: { ...none, model: 'gemini-3-pro' }, cwd: '/r' })).toEqual(['-p', '', '--output-format', 'json', '--approval-mode', 'auto_edit', '-m', 'gemini-3-pro']);
  });

  it('prompt on stdin only; only --model is supported', () => {
    const plan = runner.launch({ prompt: 'secret task words', limits: none, cwd: '/r' });
    expect(plan.stdin).toBe('secret task words');
    expect(plan.args.join(' ')).not.toContain('secret');
    expect(runner.supports).toEqual({ maxTurns: false, maxBudgetUsd: false, model: true, effort: [] });
  });

  it('prompt: the host brief plus the headless line', () => {
    const brief: AttemptBrief = { task: 't', allow: ['a/**'], deny: [], limits: { max_files: 1, max_added_lines: 1, max_deleted_lines: 1, max_working_bytes: 1, max_binary_files: 1 }, allowCommits: true, verifiers: [], attempt: 1, maxAttempts: 1 };
    const standard = renderBrief(brief);
    expect(runner.prompt(brief, standard)).toBe(`${standard}\nEdit tools are approved automatically in this headless session; nobody will answer questions, so finish the task or stop.\n`);
  });
});

describe('reading the JSON result', () => {
  it('success: session id, main-model turns (not the router), tokens, tool calls, response', () => {
    const report = parseGeminiResult(fixture('success'));
    expect(report).toMatchObject({ ok: true, status: 'ok', turns: 2, toolCalls: 1, message: 'All done.' });
    expect(report.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(report.inputTokens).toBeGreaterThan(0);
  });

  it('an API error: the error object at the end of stderr, exit 144', () => {
    const out = fixture('api-error-400');
    expect(out.exitCode).toBe(144);
    expect(out.stdout).toBe('');
    expect(parseGeminiResult(out)).toMatchObject({ ok: false, status: 'error', error: 'fake failure 400' });
  });

  it('nothing readable is not ok, never a throw', () => {
    for (const stdout of ['', 'oops', '{"unrelated": true}', '{']) {
      expect(parseGeminiResult({ exitCode: 0, signal: null, stdout, stderr: 'trace\n{ not json' })).toMatchObject({ ok: false, unreported: true, error: 'printed no JSON result' });
    }
  });
});
