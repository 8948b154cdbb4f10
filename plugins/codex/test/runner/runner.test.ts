import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentOutput, AttemptBrief, RunnerLimits } from '@cordon/plugin-api';
import { describe, expect, it } from 'vitest';
import { renderBrief } from '../../../../packages/host/src/envelope/attempt/prompt.js';
import { codexArgs, runner } from '../../src/runner/index.js';
import { parseCodexEvents } from '../../src/runner/parse.js';

// Outputs captured from the real Codex 0.171.0 (`codex exec --json`) against the fake Responses server.
const fixture = (name: string): AgentOutput => JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', `${name}.json`), 'utf8'));
const none: RunnerLimits = { maxTurns: null, maxBudgetUsd: null, model: null, effort: null };

describe('codex exec arguments', () => {
  it('minimal: JSON events, no session files, workspace-write, prompt from stdin (`-`)', () => {
    expect(codexArgs({ prompt: 'p', limits: none, cwd: '/r' })).toEqual(['exec', '--json', '--ephemeral', '--sandbox', 'workspace-write', '-']);
  });

  it('model and reasoning effort', () => {
    expect(codexArgs({ prompt: 'p', limits: { ...none, model: 'gpt-5.5', effort: 'high' }, cwd: '/r' })).toEqual([
      'exec', '--json', '--ephemeral', '--sandbox', 'workspace-write', '-m', 'gpt-5.5', '-c', 'model_reasoning_effort="high"', '-',
    ]);
  });

  it('prompt on stdin only; no turn or spend limit declared', () => {
    const plan = runner.launch({ prompt: 'secret task words', limits: none, cwd: '/r' });
    expect(plan.stdin).toBe('secret task words');
    expect(plan.args.join(' ')).not.toContain('secret');
    expect(runner.supports.maxTurns).toBe(false);
    expect(runner.supports.maxBudgetUsd).toBe(false);
  });

  it('prompt: the host brief plus the non-interactive line', () => {
    const brief: AttemptBrief = { task: 't', allow: ['a/**'], deny: [], limits: { max_files: 1, max_added_lines: 1, max_deleted_lines: 1, max_working_bytes: 1, max_binary_files: 1 }, allowCommits: false, verifiers: [], attempt: 2, maxAttempts: 2 };
    const standard = renderBrief(brief);
    expect(runner.prompt(brief, standard)).toBe(`${standard}\nYou run non-interactively in the workspace-write sandbox: nobody will answer questions, so finish the task or stop.\n`);
  });
});

describe('reading the JSON events', () => {
  it('success: thread id, one turn, tokens, tool calls, last agent message', () => {
    const report = parseCodexEvents(fixture('success'));
    expect(report).toMatchObject({ ok: true, status: 'turn.completed', turns: 1, toolCalls: 2, message: 'All done.', inputTokens: 30, outputTokens: 15 });
    expect(report.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('an API error: turn.failed with the provider message unwrapped', () => {
    const out = fixture('api-error-400');
    expect(out.exitCode).toBe(1);
    const report = parseCodexEvents(out);
    expect(report).toMatchObject({ ok: false, status: 'turn.failed', turns: 0, error: 'fake failure 400' });
    expect(report.sessionId).toBeTruthy();
  });

  it('the failure is read the same with exit 0', () => {
    expect(parseCodexEvents({ ...fixture('api-error-400'), exitCode: 0 }).ok).toBe(false);
  });

  it('events but no completed turn (killed mid-turn) is not ok; no events at all is not ok', () => {
    const started = '{"type":"thread.started","thread_id":"t-1"}\n{"type":"turn.started"}\n';
    expect(parseCodexEvents({ exitCode: 0, signal: null, stdout: started, stderr: '' })).toMatchObject({ ok: false, unreported: true, error: 'no turn completed', sessionId: 't-1', status: 'no turn' });
    expect(parseCodexEvents({ exitCode: 0, signal: null, stdout: 'garbage\n{broken', stderr: '' })).toMatchObject({ ok: false, unreported: true, error: 'printed no JSON events on stdout' });
  });
});
