import { writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPlugins, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { git, makeRepo } from '../../../../test/support/git.js';

// `cordon arm --live` names as refused only the agents whose hooks are installed and current here
// (user scope, or this repository's project scope), by doctor's own check: with no hooks at all
// it says that nothing is refused yet.

let box: Sandbox;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  box = makeSandbox('cordon-live-coverage-');
  linkPlugins(box.dataDir, ['claude-code', 'codex', 'gemini', 'cursor', 'hermes', 'aider']);
  // No agent and no `cordon` on PATH.
  env = { ...box.env, PATH: `${dirname(process.execPath)}${delimiter}/usr/bin${delimiter}/bin`, HERMES_HOME: join(box.home, '.hermes') };
});
afterEach(() => box.cleanup());

const newRepo = (files: Record<string, string> = { 'src/app.py': 'print(1)\n' }) => makeRepo(box.dir(`repo-${Math.random().toString(36).slice(2)}`), files, env);
const liveLine = (stdout: string) => stdout.split('\n').find((l) => l.startsWith('live: '));
async function armLive(repo: string, e = env) {
  const text = await runCordon(['arm', 'x', '--allow', 'src/**', '--live'], { env: e, cwd: repo });
  expect(text.exitCode, text.stderr).toBe(0);
  expect((await runCordon(['reset'], { env: e, cwd: repo })).exitCode).toBe(0);
  const json = await runCordon(['arm', 'x', '--allow', 'src/**', '--live', '--json'], { env: e, cwd: repo });
  expect(json.exitCode, json.stderr).toBe(0);
  expect((await runCordon(['reset'], { env: e, cwd: repo })).exitCode).toBe(0);
  return { line: liveLine(text.stdout), agents: JSON.parse(json.stdout).live_agents };
}

describe('arm --live names the agents it refuses', () => {
  it('none when no agent has the hooks: says so and how to install them', async () => {
    const { line, agents } = await armLive(newRepo());
    expect(line).toMatch(/^live: no agent has cordon's hooks installed here, so nothing is refused yet: run cordon install-hooks --agent <agent> --write; no hook can refuse a write for aider/);
    expect(agents).toEqual({ refusing: [], not_refusing: ['aider'], not_hooked: ['claude-code', 'codex', 'cursor', 'gemini', 'hermes'] });
  });

  it('only the agent whose user-scope hooks are installed and current; a stale one is not', async () => {
    expect((await runCordon(['install-hooks', '--agent', 'claude-code', '--write'], { env })).exitCode).toBe(0);
    const repo = newRepo();
    const { line, agents } = await armLive(repo);
    expect(line).toMatch(/^live: a file write outside the policy is refused before it happens for claude-code \(their hooks are installed here\); not yet for codex, cursor, gemini, hermes, /);
    expect(agents.refusing).toEqual(['claude-code']);
    // A command that no longer starts refuses nothing.
    const settings = join(box.home, '.claude/settings.json');
    writeFileSync(settings, (await import('node:fs')).readFileSync(settings, 'utf8').split(CORDON_BIN).join('/opt/gone/run.cjs'));
    expect((await armLive(repo)).agents.refusing).toEqual([]);
  });

  it("this repository's project-scope hooks count once their command starts here", async () => {
    const repo = newRepo();
    expect((await runCordon(['install-hooks', '--agent', 'gemini', '--scope', 'project', '--write'], { env, cwd: repo })).exitCode).toBe(0);
    git(repo, ['add', '-A'], env);
    git(repo, ['commit', '-q', '-m', 'hooks'], env);
    // The portable `cordon hook` with no cordon on PATH cannot start.
    expect((await armLive(repo)).agents.refusing).toEqual([]);
    const bin = box.dir('bin');
    writeFileSync(join(bin, 'cordon'), `#!/bin/sh\nexec '${process.execPath}' '${CORDON_BIN}' "$@"\n`, { mode: 0o755 });
    const withCordon = { ...env, PATH: `${bin}${delimiter}${env.PATH}` };
    expect((await armLive(repo, withCordon)).agents.refusing).toEqual(['gemini']);
    // Another repository has no such hooks.
    expect((await armLive(newRepo(), withCordon)).agents.refusing).toEqual([]);
  });
});
