import type { AgentReport } from '@cordon/plugin-api';
import { describe, expect, it } from 'vitest';
import { classifyAttempt } from '../../../src/envelope/attempt/classify.js';
import type { AgentExit } from '../../../src/envelope/attempt/supervise.js';

const exit = (over: Partial<AgentExit> = {}): AgentExit => ({ started: true, startError: null, exitCode: 0, signal: null, timedOut: false, outputLimited: false, interrupted: false, stdout: '', stderr: '', wallMs: 10, leftovers: 0, ...over });
const ok: AgentReport = { ok: true, status: 'success' };
const classify = (e: AgentExit, report: AgentReport | undefined = ok, signal?: NodeJS.Signals) => classifyAttempt('Claude Code', e, report, signal, 30, 4194304);

describe('classifying an attempt (the BEKO2210/SkillQuarry cordon step 5)', () => {
  it('exit 0 with a good report is finished: the audit decides', () => {
    expect(classify(exit())).toEqual({ kind: 'finished' });
  });

  it('an error the agent reports with exit 0 is an engine error (anthropics/claude-code#79500)', () => {
    expect(classify(exit(), { ok: false, status: 'api_error', error: 'API Error: 403 forbidden' })).toEqual({ kind: 'engine_error', reason: 'Claude Code reported an error (exit 0): api_error: API Error: 403 forbidden' });
  });

  it('exit 0 with nothing readable is worded as what happened, not as an error the agent reported', () => {
    expect(classifyAttempt('Claude Code', exit(), undefined, undefined, 30, 4194304)).toEqual({ kind: 'engine_error', reason: 'Claude Code exited 0 but printed no readable result' });
    expect(classifyAttempt('Codex', exit(), { ok: false, unreported: true, error: 'printed no JSON events on stdout' }, undefined, 30, 4194304)).toEqual({ kind: 'engine_error', reason: 'Codex exited 0 but printed no JSON events on stdout' });
    expect(classify(exit({ exitCode: 3, stderr: 'x' }), { ok: false, unreported: true, error: 'printed no result object on stdout' })).toEqual({ kind: 'engine_error', reason: 'Claude Code exited 3: printed no result object on stdout' });
  });

  it('a non-zero exit names the agent’s own error, else stderr', () => {
    expect(classify(exit({ exitCode: 1 }), { ok: false, status: 'error_max_turns', error: 'Reached maximum number of turns (2)' })).toEqual({ kind: 'engine_error', reason: 'Claude Code exited 1: error_max_turns: Reached maximum number of turns (2)' });
    expect(classify(exit({ exitCode: 7, stderr: 'partial write failed\n' }), { ok: false, error: 'printed no result object on stdout' })).toEqual({ kind: 'engine_error', reason: 'Claude Code exited 7: printed no result object on stdout' });
    expect(classify(exit({ exitCode: 7, stderr: '  boom \n' }), { ok: true })).toEqual({ kind: 'engine_error', reason: 'Claude Code exited 7: boom' });
    expect(classify(exit({ exitCode: 7 }), { ok: true })).toEqual({ kind: 'engine_error', reason: 'Claude Code exited 7: (no output on stderr)' });
    expect(classify(exit({ exitCode: 7, stderr: 'crashed' }), { ok: false, status: 'no turn' })).toEqual({ kind: 'engine_error', reason: 'Claude Code exited 7: crashed' });
  });

  it('order: interrupt, cannot start, timeout, overflow, signal, exit code', () => {
    const all = exit({ startError: "cannot start 'claude': ENOENT spawn claude ENOENT", timedOut: true, outputLimited: true, exitCode: null, signal: 'SIGKILL' });
    expect(classify(all, ok, 'SIGINT')).toEqual({ kind: 'interrupted', reason: 'interrupted by SIGINT' });
    expect(classify(all)).toEqual({ kind: 'engine_error', reason: "cannot start 'claude': ENOENT spawn claude ENOENT" });
    expect(classify({ ...all, startError: null })).toEqual({ kind: 'engine_error', reason: 'Claude Code timed out after 30 s' });
    expect(classify({ ...all, startError: null, timedOut: false })).toEqual({ kind: 'engine_error', reason: 'Claude Code exceeded the 4194304-byte output limit' });
    expect(classify({ ...all, startError: null, timedOut: false, outputLimited: false })).toEqual({ kind: 'engine_error', reason: 'Claude Code was killed by SIGKILL' });
  });

  it('reasons keep 2,000 characters', () => {
    const v = classify(exit({ exitCode: 2, stderr: 'x'.repeat(5000) }), { ok: true });
    expect(v.kind === 'engine_error' && v.reason.length).toBe(2000);
  });
});
