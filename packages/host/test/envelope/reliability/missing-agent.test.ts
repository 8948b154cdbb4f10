import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../../test/support/cli.js';
import { makeRepo } from '../../../../../test/support/git.js';
import { findAgentBinary } from '../../../src/envelope/attempt/options.js';

/**
 * Issue 12 item 4: `cordon run --agent codex` without codex installed: the missing binary is
 * found before anything is armed or counted (exit 2 with how to install it).
 */

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = makeSandbox('cordon-missing-agent-');
  linkPlugins(sandbox.dataDir, ['claude-code', 'codex', 'gemini']);
});
afterEach(() => sandbox.cleanup());

/** A PATH holding only node (the cordon bin runs with process.execPath) and git, no agent. */
function pathWithoutAgents(): string {
  const bin = sandbox.dir('bin');
  return `${bin}:/usr/bin:/bin`;
}

describe('an agent that is not installed', () => {
  const agents: Array<[string, string]> = [
    ['codex', 'npm install -g @openai/codex'],
    ['gemini', 'npm install -g @google/gemini-cli'],
    ['claude-code', 'npm install -g @anthropic-ai/claude-code'],
  ];
  for (const [agent, install] of agents) {
    it(`run --agent ${agent}: exit 2 naming the binary and the install command; nothing armed, no attempt counted, never "accepted"`, async () => {
      const repo = makeRepo(sandbox.dir(`repo-${agent}`), { 'src/a.txt': 'a\n' }, sandbox.env);
      const env = { ...sandbox.env, PATH: pathWithoutAgents() };
      const r = await runCordon(['run', 'do it', '--agent', agent, '--allow', 'src/**'], { cwd: repo, env });
      expect(r.exitCode, r.stderr).toBe(2);
      const text = (r.stdout + r.stderr).replace(/\s+/g, ' ');
      expect(text).toContain(install);
      expect(text).toContain(': not found on PATH');
      expect(text).toContain('Nothing was armed and no attempt was used');
      expect(text).not.toMatch(/accepted/);
      expect(existsSync(join(repo, '.cordon'))).toBe(false);
      expect(existsSync(join(repo, '.git/cordon.lock'))).toBe(false);
    });
  }

  it('--agent-bin that does not exist, is a directory or is not executable: the same refusal, naming the path', async () => {
    const repo = makeRepo(sandbox.dir('repo'), { 'src/a.txt': 'a\n' }, sandbox.env);
    const dir = sandbox.dir('agents');
    const plain = join(dir, 'plain');
    writeFileSync(plain, '#!/bin/sh\n');
    chmodSync(plain, 0o644);
    mkdirSync(join(dir, 'a-dir'));
    const cases: Array<[string, RegExp]> = [
      [join(dir, 'missing'), /missing: no such file/],
      [join(dir, 'a-dir'), /a-dir: is a directory/],
      ['./relative/missing', /relative\/missing: no such file/],
    ];
    if (process.getuid?.() !== 0) cases.push([plain, /plain: not executable/]);
    for (const [bin, why] of cases) {
      const r = await runCordon(['run', 'x', '--agent', 'codex', '--agent-bin', bin, '--allow', 'src/**'], { cwd: repo, env: sandbox.env });
      expect({ bin, code: r.exitCode }).toEqual({ bin, code: 2 });
      expect((r.stdout + r.stderr).replace(/\s+/g, ' ')).toMatch(why);
      expect(existsSync(join(repo, '.cordon'))).toBe(false);
    }
  });

  it('findAgentBinary looks in PATH as execvp does (empty entries are the current directory) and resolves a relative path against the repository', () => {
    const dir = sandbox.dir('lookup');
    const exe = join(dir, 'agent');
    writeFileSync(exe, '#!/bin/sh\n');
    chmodSync(exe, 0o755);
    const runner = { title: 'Agent', install: 'get it' };
    expect(findAgentBinary(runner, 'agent', '/', { PATH: `/nonexistent:${dir}` })).toBe(exe);
    expect(findAgentBinary(runner, 'agent', dir, { PATH: ':/nonexistent' })).toBe(exe);
    expect(findAgentBinary(runner, './agent', dir, {})).toBe(exe);
    expect(() => findAgentBinary(runner, 'agent', '/', { PATH: '/nonexistent' })).toThrow(/cannot start Agent: "agent": not found on PATH; install it \(get it\)/);
    // A directory of that name on PATH is said as such, as a failed start would say it.
    mkdirSync(join(dir, 'bin', 'agent'), { recursive: true });
    expect(() => findAgentBinary(runner, 'agent', '/', { PATH: join(dir, 'bin') })).toThrow(`cannot start Agent: "agent": is a directory (${join(dir, 'bin', 'agent')}); install it (get it)`);
  });
});
