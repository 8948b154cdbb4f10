import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRunner } from '@cordon/plugin-api';
import { describe, expect, it } from 'vitest';
import { runCordon } from '../../../../../test/support/cli.js';
import { runEnvelope } from '../../../src/envelope/attempt/run.js';
import { canonicalBody } from '../../../src/envelope/state/canonical-json.js';
import { sha256 } from '../../../src/envelope/state/exclude.js';
import { armWith, repo } from '../support.js';

// Issue 29: `cordon status` validates what every other command validates: damaged state is exit
// 2 (never a TypeError, exit 1), and a `run` envelope whose runner settings `resume` would refuse
// is not reported healthy.

const flat = (s: string) => s.replace(/\s+/g, ' ');
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

describe('cordon status on damaged state', () => {
  it('a malformed last_audit is exit 2 for status, check and resume alike', async () => {
    const dir = repo();
    await armWith(dir, { allow: ['src/**'] });
    const statePath = join(dir, '.cordon', 'state.json');
    const good = readJson(statePath);
    for (const [audit, why] of [
      [{ passed: true }, 'mode is neither envelope nor range'],
      [{ passed: true, mode: 'envelope', baseline: 'x', current_head: 'x', head_changed: false, changed_files: [], metrics: {}, limits: {}, violations: 'none', ignored_changes: [], verification: [], verification_skipped: false }, 'violations is not a list'],
      [{ passed: false, mode: 'envelope', baseline: 'x', current_head: 'x', head_changed: false, changed_files: [], metrics: {}, limits: {}, violations: [], ignored_changes: [], verification: [{}], verification_skipped: false }, 'verification is not a list of verifier results'],
    ] as const) {
      writeFileSync(statePath, JSON.stringify({ ...good, last_audit: audit }));
      for (const command of ['status', 'check', 'resume']) {
        const r = await runCordon([command], { cwd: dir });
        expect(r.exitCode, `${command}: ${r.stderr}`).toBe(2);
        expect(flat(r.stderr), command).toContain(`state last_audit is malformed: ${why}`);
        expect(r.stderr).not.toContain('TypeError');
      }
    }
  }, 120_000);

  it('a run envelope whose runner settings resume refuses is exit 2, not healthy', async () => {
    const runner: AgentRunner = {
      title: 'Script agent',
      binary: process.execPath,
      supports: { maxTurns: false, maxBudgetUsd: false, model: false, effort: [] },
      prompt: (_brief, standard) => standard,
      launch: () => ({ args: ['-e', 'process.exit(3)'] }),
      parse: (output) => ({ ok: output.exitCode === 0, status: 'scripted' }),
    };
    const dir = repo();
    await runEnvelope({ task: 'fail', agent: 'script', runner, settings: { allow: ['src/**'] } }, { repo: dir });
    expect((await runCordon(['status'], { cwd: dir })).exitCode).toBe(0);
    const configPath = join(dir, '.cordon', 'config.json');
    const statePath = join(dir, '.cordon', 'state.json');
    const config = readJson(configPath);
    for (const [change, problem] of [
      [{ timeout_seconds: -1 }, 'config runner timeout_seconds is invalid'],
      [{ output_cap: 0 }, 'config runner output_cap is invalid'],
      [{ binary: '' }, 'config runner binary is invalid'],
    ] as const) {
      const damaged = { ...config, runner: { ...(config.runner as object), ...change } };
      writeFileSync(configPath, JSON.stringify(damaged));
      writeFileSync(statePath, JSON.stringify({ ...readJson(statePath), config_sha256: sha256(canonicalBody(damaged)) }));
      const r = await runCordon(['status'], { cwd: dir });
      expect(r.exitCode, r.stdout).toBe(2);
      expect(flat(r.stderr)).toContain(`${problem}; \`cordon resume\` would refuse this envelope`);
      const resume = await runCordon(['resume'], { cwd: dir });
      expect(resume.exitCode).toBe(2);
      expect(flat(resume.stderr)).toContain(problem);
    }
  }, 120_000);
});
