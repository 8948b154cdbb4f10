import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readMarkers } from '../../../packages/host/src/telemetry/markers.js';
import { FakeAnthropic, FakeGemini, FakeOpenAIResponses, holdPerTest, step, type FakeModelServer, type ScriptOptions, type SeenToolResult } from '../../support/fake-models/index.js';
import { json, killSpawned, makeRepoSandbox, makeScene, type Scene } from './support.js';

// The live envelope with the real Claude Code, Codex and Gemini CLI against fake model servers,
// their hooks installed by `cordon install-hooks --write`: the model first writes outside the
// policy (docs/notes.md with --allow 'src/**'), is refused with the reason in its own format,
// then writes inside it. With the envelope live, `cordon check` accepts (exit 0): the refused
// file was never written. The same script with an envelope armed without --live is rejected (exit 3).

const held = holdPerTest(killSpawned);

type Server = FakeModelServer & { toolResults(): SeenToolResult[] };

interface Case {
  readonly agent: 'claude-code' | 'codex' | 'gemini';
  readonly start: (o: ScriptOptions) => Promise<Server>;
  /** What the model is told about a refused call, before the reason (the agent hook docs; docs/references.md). */
  readonly refused: RegExp;
}

const CASES: readonly Case[] = [
  { agent: 'claude-code', start: (o) => FakeAnthropic.start(o), refused: /^PreToolUse:Write hook error: / },
  { agent: 'codex', start: (o) => FakeOpenAIResponses.start(o), refused: /^Command blocked by PreToolUse hook: / },
  { agent: 'gemini', start: (o) => FakeGemini.start(o), refused: /^Tool execution blocked: / },
];

const OUTSIDE = join('docs', 'notes.md');
const INSIDE = join('src', 'app.py');
const STEPS = [step.write(OUTSIDE, 'out of bounds\n'), step.write(INSIDE, 'print("bye")\n'), step.text('Done.')];
const REFUSAL = "cordon's live envelope refused this write (nothing was written): ";

async function scene(c: Case): Promise<Scene & { server: Server }> {
  const made = makeRepoSandbox(`cordon-live-${c.agent}-`);
  held.sandbox(made.sandbox);
  const server = held.server(await c.start({ workdir: made.repo, steps: STEPS }));
  const s = makeScene(c.agent, made.sandbox, made.repo, server);
  const install = await s.cordon(['install-hooks', '--agent', c.agent, '--write']);
  expect(install.exitCode, install.stderr + install.stdout).toBe(0);
  return Object.assign(s, { server });
}

/** Every marker of the sandbox's data dir. */
function markersOf(dataDir: string) {
  const runs = join(dataDir, 'runs');
  return existsSync(runs) ? readdirSync(runs).flatMap((dir) => readMarkers(join(runs, dir, 'markers.jsonl')).markers) : [];
}

describe.each(CASES)('the live envelope with the real $agent', (c) => {
  it('arm --live: the out-of-policy write is refused with the rule and the globs, the model writes inside, check accepts (exit 0)', async () => {
    const s = await scene(c);
    const armed = await s.cordon(['arm', 'Make the app say bye', '--allow', 'src/**', '--live']);
    expect(armed.exitCode, armed.stderr + armed.stdout).toBe(0);
    // Only the agent whose hooks this scene installed is named as refused.
    expect(armed.stdout).toContain(`\nlive: a file write outside the policy is refused before it happens for ${c.agent} (their hooks are installed here)`);
    expect((await s.cordon(['status'])).stdout).toMatch(/^live: on\b/m);

    const run = await s.session.run('Make the app say bye');
    expect(run.timedOut).toBe(false);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);

    // The model's next request carried the refusal, in the agent's own words, naming the rule and the allowed globs.
    const seen = s.server.toolResults();
    expect(seen).toHaveLength(2);
    expect(seen[0]!.text).toMatch(c.refused);
    expect(seen[0]!.text).toContain(REFUSAL);
    expect(seen[0]!.text).toContain('path outside policy: docs/notes.md (matches no allow glob)');
    expect(seen[0]!.text).toContain('matching src/** (--allow)');
    expect(seen[1]!.text).not.toContain(REFUSAL);
    expect(existsSync(join(s.repo, OUTSIDE))).toBe(false);
    expect(readFileSync(join(s.repo, INSIDE), 'utf8')).toBe('print("bye")\n');

    const denied = markersOf(s.sandbox.dataDir).filter((m) => m.event === 'tool_denied');
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ decision: 'deny', decided_by: 'cordon:live-envelope', agent: c.agent });

    const check = await s.cordon(['check', '--json']);
    expect(check.exitCode, check.stderr + check.stdout).toBe(0);
    expect(json(check)).toMatchObject({ passed: true, changed_files: ['src/app.py'] });
  }, 180_000);

  it('armed without --live the same script writes outside the policy and check rejects it (exit 3)', async () => {
    const s = await scene(c);
    const armed = await s.cordon(['arm', 'Make the app say bye', '--allow', 'src/**']);
    expect(armed.exitCode, armed.stderr + armed.stdout).toBe(0);
    expect(armed.stdout).not.toContain('live:');
    expect((await s.cordon(['status'])).stdout).toMatch(/^live: off\b/m);
    const run = await s.session.run('Make the app say bye');
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    expect(s.server.toolResults().map((r) => r.text).join('\n')).not.toContain(REFUSAL);
    expect(readFileSync(join(s.repo, OUTSIDE), 'utf8')).toBe('out of bounds\n');
    const check = await s.cordon(['check', '--json']);
    expect(check.exitCode, check.stderr + check.stdout).toBe(3);
    expect(json(check).violations.map((v: { message: string }) => v.message)).toEqual([expect.stringMatching(/^path outside policy: docs\/notes\.md \(added; matches no allow glob\)/)]);
  }, 180_000);

  it('cordon run has the live envelope on: the attempt is accepted (exit 0) after the refused write', async () => {
    const s = await scene(c);
    const result = await s.cordon(['run', 'Make the app say bye', '--agent', c.agent, '--allow', 'src/**', '--json']);
    expect(result.exitCode, result.stderr + result.stdout).toBe(0);
    expect(json(result)).toMatchObject({ phase: 'accepted', audit: { passed: true, changed_files: ['src/app.py'] } });
    expect(s.server.toolResults()[0]!.text).toContain(REFUSAL);
    expect(existsSync(join(s.repo, OUTSIDE))).toBe(false);
  }, 180_000);
});

describe('the live envelope judges every file of a real Codex apply_patch', () => {
  it('refuses a patch that moves an allowed file out of the policy and deletes another, naming both; the next patch inside the policy runs', async () => {
    const codex = CASES.find((c) => c.agent === 'codex')!;
    const made = makeRepoSandbox('cordon-live-codex-patch-');
    held.sandbox(made.sandbox);
    const patch = (lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');
    const steps = [
      step.native('apply_patch', { input: patch(['*** Update File: src/app.py', '*** Move to: docs/app.py', '@@', '-print("hello")', '+print("moved")', '*** Delete File: README.md']) }),
      step.native('apply_patch', { input: patch(['*** Update File: src/app.py', '@@', '-print("hello")', '+print("bye")', '*** Add File: src/extra.py', '+X = 1']) }),
      step.text('Done.'),
    ];
    const server = held.server(await codex.start({ workdir: made.repo, steps }));
    const s = makeScene('codex', made.sandbox, made.repo, server);
    expect((await s.cordon(['install-hooks', '--agent', 'codex', '--write'])).exitCode).toBe(0);
    expect((await s.cordon(['arm', 'patch', '--allow', 'src/**', '--live'])).exitCode).toBe(0);
    const run = await s.session.run('Change the app');
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const seen = server.toolResults();
    expect(seen).toHaveLength(2);
    expect(seen[0]!.text).toMatch(codex.refused);
    expect(seen[0]!.text).toContain('docs/app.py: path outside policy: docs/app.py (matches no allow glob)');
    expect(seen[0]!.text).toContain('README.md: path outside policy: README.md (matches no allow glob)');
    expect(seen[0]!.text).not.toContain('src/app.py:');
    expect(seen[1]!.text).not.toContain(REFUSAL);
    expect(readFileSync(join(s.repo, 'README.md'), 'utf8')).toBe('# demo\n');
    expect(existsSync(join(s.repo, 'docs/app.py'))).toBe(false);
    expect(readFileSync(join(s.repo, 'src/app.py'), 'utf8')).toBe('print("bye")\n');
    const check = await s.cordon(['check', '--json']);
    expect(check.exitCode, check.stderr + check.stdout).toBe(0);
    expect(json(check).changed_files).toEqual(['src/app.py', 'src/extra.py']);
  }, 180_000);

  it('judges a deleted link by its own path and a link written through by where it leads, as Codex applies them and check sees them', async () => {
    const codex = CASES.find((c) => c.agent === 'codex')!;
    const made = makeRepoSandbox('cordon-live-codex-links-');
    held.sandbox(made.sandbox);
    // Committed links: src/to-readme (allowed place) → README.md (refused), docs/to-app (refused place) → src/app.py (allowed), src/to-app → app.py.
    symlinkSync('../README.md', join(made.repo, 'src/to-readme'));
    mkdirSync(join(made.repo, 'docs'));
    symlinkSync('../src/app.py', join(made.repo, 'docs/to-app'));
    symlinkSync('app.py', join(made.repo, 'src/to-app'));
    symlinkSync('../README.md', join(made.repo, 'src/readme-link'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Cordon Test', '-c', 'user.email=test@cordon.invalid', ...args], { cwd: made.repo, env: made.sandbox.env, stdio: 'ignore' });
    git('add', '-A');
    git('commit', '-qm', 'links');
    const patch = (lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');
    const steps = [
      step.native('apply_patch', { input: patch(['*** Delete File: docs/to-app']) }),
      step.native('apply_patch', { input: patch(['*** Delete File: src/to-readme', '*** Update File: src/to-app', '@@', '-print("hello")', '+print("through")']) }),
      // A move reads through the source link, writes the destination and removes the link itself.
      step.native('apply_patch', { input: patch(['*** Update File: src/readme-link', '*** Move to: src/readme.md', '@@', '-# demo', '+# moved']) }),
      step.text('Done.'),
    ];
    const server = held.server(await codex.start({ workdir: made.repo, steps }));
    const s = makeScene('codex', made.sandbox, made.repo, server);
    expect((await s.cordon(['install-hooks', '--agent', 'codex', '--write'])).exitCode).toBe(0);
    expect((await s.cordon(['arm', 'links', '--allow', 'src/**', '--live'])).exitCode).toBe(0);
    const run = await s.session.run('Tidy the links');
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const seen = server.toolResults();
    expect(seen).toHaveLength(3);
    // Deleting docs/to-app would delete a path outside the policy, wherever it leads.
    expect(seen[0]!.text).toContain('docs/to-app: path outside policy: docs/to-app (matches no allow glob)');
    expect(lstatSync(join(s.repo, 'docs/to-app')).isSymbolicLink()).toBe(true);
    // Deleting src/to-readme removes the link, not README.md; the update writes through src/to-app into src/app.py.
    expect(seen[1]!.text).not.toContain(REFUSAL);
    expect(existsSync(join(s.repo, 'src/to-readme'))).toBe(false);
    expect(readFileSync(join(s.repo, 'README.md'), 'utf8')).toBe('# demo\n');
    expect(lstatSync(join(s.repo, 'src/to-app')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(s.repo, 'src/app.py'), 'utf8')).toBe('print("through")\n');
    expect(seen[2]!.text).not.toContain(REFUSAL);
    expect(existsSync(join(s.repo, 'src/readme-link'))).toBe(false);
    expect(readFileSync(join(s.repo, 'src/readme.md'), 'utf8')).toBe('# moved\n');
    const check = await s.cordon(['check', '--json']);
    expect(check.exitCode, check.stderr + check.stdout).toBe(0);
    expect(json(check).changed_files).toEqual(['src/app.py', 'src/readme-link', 'src/readme.md', 'src/to-readme']);
  }, 180_000);

  it('refuses the patch forms that slipped past a stricter reader: an indented header, and apply_patch run through the shell (with and without cd)', async () => {
    const codex = CASES.find((c) => c.agent === 'codex')!;
    const made = makeRepoSandbox('cordon-live-codex-forms-');
    held.sandbox(made.sandbox);
    const patch = (lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch', ''].join('\n');
    const steps = [
      step.native('apply_patch', { input: patch(['  *** Add File: docs/indented.md', '+x']) }),
      step.shell(`apply_patch <<'EOF'\n${patch(['*** Add File: docs/heredoc.md', '+x'])}EOF\n`),
      step.shell(`cd docs && apply_patch <<'EOF'\n${patch(['*** Add File: cd.md', '+x'])}EOF\n`),
      step.shell(`cd src && apply_patch <<'EOF'\n${patch(['*** Add File: extra.py', '+X = 1'])}EOF\n`),
      step.text('Done.'),
    ];
    const server = held.server(await codex.start({ workdir: made.repo, steps }));
    const s = makeScene('codex', made.sandbox, made.repo, server);
    expect((await s.cordon(['install-hooks', '--agent', 'codex', '--write'])).exitCode).toBe(0);
    expect((await s.cordon(['arm', 'patch', '--allow', 'src/**', '--live'])).exitCode).toBe(0);
    const run = await s.session.run('Change the app');
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const seen = server.toolResults();
    expect(seen).toHaveLength(4);
    expect(seen[0]!.text).toContain('docs/indented.md: path outside policy: docs/indented.md');
    expect(seen[1]!.text).toContain('docs/heredoc.md: path outside policy: docs/heredoc.md');
    expect(seen[2]!.text).toContain('docs/cd.md: path outside policy: docs/cd.md');
    for (const r of seen.slice(0, 3)) expect(r.text).toContain(REFUSAL);
    expect(seen[3]!.text).not.toContain(REFUSAL);
    for (const f of ['docs/indented.md', 'docs/heredoc.md', 'docs/cd.md']) expect(existsSync(join(s.repo, f)), f).toBe(false);
    expect(readFileSync(join(s.repo, 'src/extra.py'), 'utf8')).toBe('X = 1\n');
    const check = await s.cordon(['check', '--json']);
    expect(check.exitCode, check.stderr + check.stdout).toBe(0);
    expect(json(check).changed_files).toEqual(['src/extra.py']);
  }, 180_000);
});

describe('the live envelope judges a path where the real Claude Code writes it', () => {
  it('refuses `~/…` (Claude Code writes it in $HOME) even where --allow covers every repository path', async () => {
    const claude = CASES.find((c) => c.agent === 'claude-code')!;
    const made = makeRepoSandbox('cordon-live-claude-home-');
    held.sandbox(made.sandbox);
    const steps = [step.native('Write', { file_path: '~/cordon-home-probe.txt', content: 'x\n' }), step.write(INSIDE, 'print("bye")\n'), step.text('Done.')];
    const server = held.server(await claude.start({ workdir: made.repo, steps }));
    const s = makeScene('claude-code', made.sandbox, made.repo, server);
    expect((await s.cordon(['install-hooks', '--agent', 'claude-code', '--write'])).exitCode).toBe(0);
    expect((await s.cordon(['arm', 'anything', '--allow', '**', '--live'])).exitCode).toBe(0);
    const run = await s.session.run('Go');
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const seen = server.toolResults();
    expect(seen[0]!.text).toContain(REFUSAL);
    expect(seen[0]!.text).toContain(`${join(s.session.env.HOME!, 'cordon-home-probe.txt')}: it is outside the repository`);
    expect(existsSync(join(s.session.env.HOME!, 'cordon-home-probe.txt'))).toBe(false);
    expect(existsSync(join(s.repo, '~'))).toBe(false);
    expect(seen[1]!.text).not.toContain(REFUSAL);
  }, 180_000);
});
