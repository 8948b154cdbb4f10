import { delimiter, join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, runCordon } from '../../../../test/support/cli.js';
import { nonSnakeKeys } from '../../../../test/support/json-keys.js';
import { cordonJson, hooksSandbox, type HooksSandbox } from './support.js';

// Cordon's hooks for one agent at both user and project scope make the agent run both: every
// call is recorded twice and the loop breaker fires early. install-hooks warns at either scope,
// doctor reports it as a problem; either uninstall named in the fix ends it.

let box: HooksSandbox;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  box = hooksSandbox('cordon-both-scopes-');
  // A `cordon` on PATH, so the project's portable command starts and only the doubling is wrong.
  const bin = box.sandbox.dir('bin');
  writeFileSync(join(bin, 'cordon'), `#!/bin/sh\nexec '${process.execPath}' '${CORDON_BIN}' "$@"\n`, { mode: 0o755 });
  env = { ...box.env, PATH: `${bin}${delimiter}${box.env.PATH}` };
});
afterEach(() => box.sandbox.cleanup());

const WARNING = /^warning: claude-code: cordon's hooks for claude-code are also in (its user config|this project's config) \(([^)]+)\): claude-code runs both, so each tool call would be recorded twice and the loop breaker fires early; remove one: `cordon uninstall-hooks --agent claude-code --scope (user|project) --write` or `cordon uninstall-hooks --agent claude-code --scope (user|project) --write`$/m;

describe('hooks for one agent at both scopes', () => {
  it('install-hooks says so at either scope, doctor reports one !! row; uninstalling one scope ends both', async () => {
    const user = await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env, cwd: box.project });
    expect(user.exitCode, user.stderr).toBe(0);
    expect(user.stdout).not.toMatch(WARNING);

    const project = await runCordon(['install-hooks', '--agent', 'claude-code', '--scope', 'project', '--write'], { env, cwd: box.project });
    expect(project.exitCode, project.stderr).toBe(0);
    expect(project.stdout.match(WARNING)?.slice(1, 3)).toEqual(['its user config', join(box.home, '.claude/settings.json')]);

    // The other way round, and in --json, where it is one of the agent's warnings.
    const again = await cordonJson(['install-hooks', '--agent', 'claude-code'], env, box.project);
    expect(again.json.agents[0].warnings.join('\n')).toContain(`are also in this project's config (${join(box.project, '.claude/settings.json')})`);

    const doctor = await cordonJson(['doctor'], env, box.project);
    expect(doctor.exitCode).toBe(1);
    expect(nonSnakeKeys(doctor.json)).toEqual([]);
    const rows = doctor.json.findings.filter((f: any) => f.check === 'hooks:claude-code:project');
    expect(rows).toEqual([
      expect.objectContaining({
        status: 'problem',
        message: expect.stringContaining('each tool call would be recorded twice'),
        fix: 'remove one: `cordon uninstall-hooks --agent claude-code --scope user --write` or `cordon uninstall-hooks --agent claude-code --scope project --write`',
      }),
    ]);

    // The fix it names works: doctor is content and install-hooks quiet again.
    expect((await runCordon(['uninstall-hooks', '--agent', 'claude-code', '--scope', 'project', '--write'], { env, cwd: box.project })).exitCode).toBe(0);
    const after = await cordonJson(['doctor'], env, box.project);
    expect(after.json.findings.filter((f: any) => f.check.startsWith('hooks:claude-code:'))).toEqual([expect.objectContaining({ check: 'hooks:claude-code:user', status: 'ok' })]);
    expect((await runCordon(['install-hooks', '--agent', 'claude-code'], { env, cwd: box.project })).stdout).not.toMatch(WARNING);
  });

  it('a project elsewhere is named with --project-dir in the fix; the home directory is not a second scope', async () => {
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--scope', 'project', '--project-dir', box.project, '--write'], { env, cwd: box.home })).exitCode).toBe(0);
    const user = await runCordon(['install-hooks', '--agent', 'claude-code', '--project-dir', box.project, '--write'], { env, cwd: box.home });
    expect(user.stdout).toContain(`\`cordon uninstall-hooks --agent claude-code --scope project --project-dir ${box.project} --write\``);
    // Run from the home directory without --project-dir: its project config is the user's own file.
    expect((await runCordon(['install-hooks', '--agent', 'claude-code'], { env, cwd: box.home })).stdout).not.toMatch(WARNING);
  });
});
