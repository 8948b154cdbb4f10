import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { parse as parseJsonc } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPlugins, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { cordonJson, HOOK_AGENTS as AGENTS, hooksSandbox, writeFiles } from './support.js';
import { requireAgent } from '../../../../test/support/agents.js';
import { listHooks } from '../../../../plugins/codex/src/dialect/app-server.js';
import { trustHash } from '../../../../plugins/codex/src/dialect/trust.js';
import { UNCONFIRMED } from '../../../../plugins/codex/src/dialect/install.js';

// `cordon install-hooks` / `uninstall-hooks` through the built CLI on realistic existing configs
// (comments, the user's own hooks, unrelated settings): dry runs, writes, idempotence, refusal of
// unparseable files, and uninstall giving back the original file.

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let home: string;
let project: string;

const COMMAND = (agent: string) => `${process.execPath} ${CORDON_BIN} hook --agent ${agent}`;

/** The user's existing configs, one per agent (user scope), with comments where the format has them. */
function userFiles(): Record<string, string> {
  return {
    '.claude/settings.json': JSON.stringify({ model: 'opus', permissions: { allow: ['Bash(npm test)'] }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/guard.sh' }] }] } }, null, 2) + '\n',
    '.codex/config.toml': [
      '# my codex settings',
      'model = "gpt-5.5" # the fast one',
      'approval_policy = "never"',
      '',
      '[features]',
      '# hooks are on by default since GA',
      'web_search = true',
      '',
      '[hooks.state."' + join(home, '.codex/hooks.json') + ':pre_tool_use:0:0"]',
      `trusted_hash = "${trustHash({ event: 'PreToolUse', matcher: 'Bash', command: '/usr/local/bin/codex-guard', timeout: 5 })}"`,
      '',
    ].join('\n'),
    '.codex/hooks.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/codex-guard', timeout: 5 }] }] } }, null, 2) + '\n',
    '.gemini/settings.json': '{\n  // Gemini accepts comments in settings\n  "security": { "auth": { "selectedType": "gemini-api-key" } },\n  "ui": { "theme": "GitHub" },\n}\n',
    '.cursor/hooks.json': JSON.stringify({ version: 1, hooks: { afterFileEdit: [{ command: './format.sh' }] } }, null, 2) + '\n',
    '.hermes/config.yaml': '# Hermes main config\nmodel:\n  default: anthropic/claude-sonnet # pinned on purpose\n\nhooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: ~/.hermes/agent-hooks/guard.sh\n\nhooks_auto_accept: false\n',
  };
}

const write = (files: Record<string, string>, root = home): void => writeFiles(root, files);
const read = (path: string, root = home): string => readFileSync(join(root, path), 'utf8');
const cordon = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => cordonJson(args, { ...env, ...extraEnv }, project);

// No agent on PATH unless a test puts one there: --all must rely on config homes then.
beforeEach(() => {
  ({ sandbox, home, project, env } = hooksSandbox('cordon-install-hooks-'));
});
afterEach(() => sandbox.cleanup());

describe('install-hooks on the user configs of all five agents', () => {
  it('dry run: prints a diff per file and writes nothing', async () => {
    write(userFiles());
    const before = userFiles();
    const r = await runCordon(['install-hooks', ...AGENTS.flatMap((a) => ['--agent', a])], { env, cwd: project });
    expect(r.exitCode, r.stderr).toBe(0);
    for (const agent of AGENTS) expect(r.stdout).toContain(`== ${agent} (user)`);
    expect(r.stdout).toContain(`+            "command": "${COMMAND('claude-code')}",`);
    expect(r.stdout).toContain('dry run: nothing was written; pass --write to apply');
    for (const [path, text] of Object.entries(before)) expect(read(path)).toBe(text);
  });

  it("says when a CORDON_*_DIR is set only here: the hook runs in the agent's environment, which may lack it", async () => {
    write(userFiles());
    const r = await runCordon(['install-hooks', '--agent', 'claude-code'], { env, cwd: project });
    expect(r.exitCode, r.stderr).toBe(0);
    const note = r.stdout.split('\n').find((l) => l.startsWith('note: CORDON_DATA_DIR='));
    expect(note).toContain(`CORDON_DATA_DIR=${env.CORDON_DATA_DIR}`);
    expect(note).toContain(`(without CORDON_DATA_DIR: ${join(env.XDG_DATA_HOME!, 'cordon')})`);
    const json = await runCordon(['install-hooks', '--agent', 'claude-code', '--json'], { env, cwd: project });
    expect(json.stderr).toContain(`note: CORDON_DATA_DIR=${env.CORDON_DATA_DIR}`);
    expect(JSON.parse(json.stdout).agents[0].agent).toBe('claude-code');
    // Without the variables there is nothing to say (whatever the plugins found there).
    const plain = Object.fromEntries(Object.entries(env).filter(([name]) => !/^CORDON_(DATA|CONFIG|CACHE)_DIR$/.test(name)));
    const quiet = await runCordon(['install-hooks', '--agent', 'claude-code'], { env: plain, cwd: project });
    expect(quiet.stdout + quiet.stderr).not.toContain('CORDON_DATA_DIR');
  });

  it('says nothing when the CORDON_*_DIR variables name exactly the defaults they replace (however spelled)', async () => {
    write(userFiles());
    const defaults = { data: join(env.XDG_DATA_HOME!, 'cordon'), config: join(env.XDG_CONFIG_HOME!, 'cordon'), cache: join(env.XDG_CACHE_HOME!, 'cordon') };
    for (const dir of Object.values(defaults)) mkdirSync(dir, { recursive: true });
    linkPlugins(defaults.data, ['claude-code']);
    symlinkSync(defaults.config, join(home, 'config-link'));
    const same = { ...env, CORDON_DATA_DIR: `${env.XDG_DATA_HOME}/../share/cordon/`, CORDON_CONFIG_DIR: join(home, 'config-link'), CORDON_CACHE_DIR: defaults.cache };
    const r = await runCordon(['install-hooks', '--agent', 'claude-code'], { env: same, cwd: project });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('== claude-code (user)');
    expect(r.stdout + r.stderr).not.toMatch(/CORDON_(DATA|CONFIG|CACHE)_DIR/);
    // One that differs is still named, and only it.
    const other = await runCordon(['install-hooks', '--agent', 'claude-code'], { env: { ...same, CORDON_CACHE_DIR: sandbox.cacheDir }, cwd: project });
    const note = other.stdout.split('\n').find((l) => l.startsWith('note: '));
    expect(note).toMatch(/^note: CORDON_CACHE_DIR=\S+ is set here/);
    expect(note).not.toMatch(/CORDON_(DATA|CONFIG)_DIR/);
  });

  it('notes speak to the user: no internal research references; Codex without a codex binary says what to do', async () => {
    write(userFiles());
    const r = await cordon(['install-hooks', ...AGENTS.flatMap((a) => ['--agent', a])]);
    expect(r.exitCode, r.stderr).toBe(0);
    for (const agent of r.json.agents) for (const note of agent.notes) expect(note, agent.agent).not.toMatch(/research|§|\.md\b/);
    const codex = r.json.agents.find((a: any) => a.agent === 'codex');
    expect(codex.warnings).toEqual([UNCONFIRMED]);
    expect(r.stderr).toContain(`warning: codex: ${UNCONFIRMED}`);
    // In words, last, where it is seen.
    const human = await runCordon(['install-hooks', '--agent', 'codex'], { env, cwd: project });
    expect(human.stdout.trimEnd().split('\n').at(-1)).toBe(`warning: codex: ${UNCONFIRMED}`);
  });

  it('--write adds cordon with absolute command paths, keeps everything else, and a second run changes nothing', async () => {
    write(userFiles());
    const first = await cordon(['install-hooks', ...AGENTS.flatMap((a) => ['--agent', a]), '--write']);
    expect(first.exitCode, first.stderr + first.stdout).toBe(0);
    expect(first.json.write).toBe(true);

    const claude = JSON.parse(read('.claude/settings.json'));
    expect(claude.model).toBe('opus');
    expect(claude.permissions).toEqual({ allow: ['Bash(npm test)'] });
    expect(claude.hooks.PreToolUse[0].hooks[0].command).toBe('/usr/local/bin/guard.sh');
    for (const event of ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'SessionStart', 'SessionEnd']) {
      const cordonGroups = claude.hooks[event].filter((g: any) => g.hooks.some((h: any) => h.command === COMMAND('claude-code')));
      expect(cordonGroups, event).toHaveLength(1);
    }
    expect(claude.hooks.PostToolUseFailure[0]).toEqual({ matcher: '*', hooks: [{ type: 'command', command: COMMAND('claude-code'), timeout: 30 }] });

    const codexHooks = JSON.parse(read('.codex/hooks.json'));
    expect(Object.keys(codexHooks)).toEqual(['hooks']);
    expect(codexHooks.hooks.PreToolUse).toHaveLength(2);
    expect(codexHooks.hooks.PreToolUse[0].hooks[0].command).toBe('/usr/local/bin/codex-guard');
    const toml = read('.codex/config.toml');
    expect(toml.startsWith(userFiles()['.codex/config.toml'])).toBe(true);
    const state = (parseToml(toml) as any).hooks.state;
    expect(state[`${join(home, '.codex/hooks.json')}:pre_tool_use:0:0`].trusted_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Object.keys(state).sort()).toEqual(
      [`pre_tool_use:0:0`, 'pre_tool_use:1:0', 'post_tool_use:0:0', 'session_start:0:0', 'session_end:0:0'].map((k) => `${join(home, '.codex/hooks.json')}:${k}`).sort(),
    );

    const gemini = read('.gemini/settings.json');
    expect(gemini).toContain('// Gemini accepts comments in settings');
    const geminiHooks = (parseJsonc(gemini) as any).hooks;
    expect(geminiHooks.BeforeTool[0]).toEqual({ matcher: '*', hooks: [{ type: 'command', name: 'cordon', command: COMMAND('gemini'), timeout: 30000 }] });

    const cursor = JSON.parse(read('.cursor/hooks.json'));
    expect(cursor.version).toBe(1);
    expect(cursor.hooks.afterFileEdit).toEqual([{ command: './format.sh' }]);
    expect(Object.keys(cursor.hooks).sort()).toEqual(['afterFileEdit', 'postToolUse', 'postToolUseFailure', 'preToolUse', 'sessionEnd', 'sessionStart']);

    const hermes = read('.hermes/config.yaml');
    for (const kept of ['# Hermes main config', '# pinned on purpose', 'hooks_auto_accept: false', 'command: ~/.hermes/agent-hooks/guard.sh']) expect(hermes).toContain(kept);
    const hermesHooks = (parseYaml(hermes) as any).hooks;
    expect(Object.keys(hermesHooks)).toEqual(['pre_tool_call', 'post_tool_call', 'on_session_start', 'on_session_finalize']);
    expect(hermesHooks.on_session_end).toBeUndefined();
    expect(first.json.agents.find((a: any) => a.agent === 'hermes').notes.join(' ')).toMatch(/consent.*--accept/);
    expect(existsSync(join(home, '.hermes/shell-hooks-allowlist.json'))).toBe(false);

    const snapshot = Object.fromEntries(Object.keys(userFiles()).map((p) => [p, read(p)]));
    const second = await cordon(['install-hooks', ...AGENTS.flatMap((a) => ['--agent', a]), '--write']);
    expect(second.exitCode).toBe(0);
    expect(second.json.agents.every((a: any) => a.changes.length === 0)).toBe(true);
    for (const [path, text] of Object.entries(snapshot)) expect(read(path), path).toBe(text);
  });

  it('uninstall-hooks --write gives back the original files', async () => {
    write(userFiles());
    expect((await cordon(['install-hooks', '--all', '--write'])).exitCode).toBe(0);
    const r = await cordon(['uninstall-hooks', '--all', '--write']);
    expect(r.exitCode, r.stderr).toBe(0);
    for (const [path, text] of Object.entries(userFiles())) {
      if (path.endsWith('.yaml')) {
        expect(parseYaml(read(path))).toEqual(parseYaml(text));
        for (const comment of text.match(/#.*$/gm)!) expect(read(path)).toContain(comment);
      } else expect(read(path), path).toBe(text);
    }
    const again = await cordon(['uninstall-hooks', '--all', '--write']);
    expect(again.json.agents.every((a: any) => a.changes.length === 0)).toBe(true);
  });

  it('creates missing configs and removes them again on uninstall', async () => {
    const r = await cordon(['install-hooks', '--agent', 'claude-code', '--agent', 'codex', '--agent', 'cursor', '--write']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(read('.codex/hooks.json')).description).toBe('managed by cordon');
    expect(r.json.agents.flatMap((a: any) => a.changes).every((c: any) => c.created)).toBe(true);
    const u = await cordon(['uninstall-hooks', '--agent', 'claude-code', '--agent', 'codex', '--agent', 'cursor', '--write']);
    expect(u.exitCode, u.stderr).toBe(0);
    for (const path of ['.claude/settings.json', '.codex/hooks.json', '.codex/config.toml', '.cursor/hooks.json']) {
      expect(existsSync(join(home, path)), path).toBe(false);
    }
  });

  it('refuses an unparseable config: exit 2, CORDON_CONFIG_UNPARSEABLE, and no file of any agent touched', async () => {
    write({ '.claude/settings.json': '{"hooks": {', '.gemini/settings.json': '{}\n' });
    const r = await cordon(['install-hooks', '--agent', 'gemini', '--agent', 'claude-code', '--write']);
    expect(r.exitCode).toBe(2);
    expect(r.json.error.code).toBe('CORDON_CONFIG_UNPARSEABLE');
    expect(r.json.error.message).toContain(join(home, '.claude/settings.json'));
    expect(read('.claude/settings.json')).toBe('{"hooks": {');
    expect(read('.gemini/settings.json')).toBe('{}\n');
    write({ '.hermes/config.yaml': 'hooks: [unclosed\n' });
    const y = await cordon(['install-hooks', '--agent', 'hermes', '--write']);
    expect(y.exitCode).toBe(2);
    expect(read('.hermes/config.yaml')).toBe('hooks: [unclosed\n');
    write({ '.codex/config.toml': 'model = \n' });
    const t = await cordon(['install-hooks', '--agent', 'codex', '--write']);
    expect(t.exitCode).toBe(2);
    expect(existsSync(join(home, '.codex/hooks.json'))).toBe(false);
  });

  it('--all installs for the agents found here only', async () => {
    write({ '.gemini/settings.json': '{}\n', '.hermes/config.yaml': 'model: x\n' });
    const r = await cordon(['install-hooks', '--all']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json.agents.map((a: any) => a.agent)).toEqual(['gemini', 'hermes']);
    // The agents left out are named with what was looked for: a field under --json, a line each otherwise.
    expect(r.json.passed_over).toEqual([
      { agent: 'claude-code', reason: `not found here (no \`claude\` command on PATH, no directory ${join(home, '.claude')})` },
      { agent: 'codex', reason: `not found here (no \`codex\` command on PATH, no directory ${join(home, '.codex')})` },
      { agent: 'cursor', reason: `not found here (no \`cursor-agent\` command on PATH, no directory ${join(home, '.cursor')})` },
    ]);
    const human = await runCordon(['install-hooks', '--all'], { env, cwd: project });
    expect(human.stdout.split('\n').filter((l) => l.startsWith('skipped '))).toEqual([
      `skipped claude-code: not found here (no \`claude\` command on PATH, no directory ${join(home, '.claude')})`,
      `skipped codex: not found here (no \`codex\` command on PATH, no directory ${join(home, '.codex')})`,
      `skipped cursor: not found here (no \`cursor-agent\` command on PATH, no directory ${join(home, '.cursor')})`,
    ]);
    // Named agents are never "passed over".
    expect((await cordon(['install-hooks', '--agent', 'gemini'])).json.passed_over).toBeUndefined();
  });

  it('rejects a missing agent choice and unknown agents with clear errors', async () => {
    const none = await cordon(['install-hooks']);
    expect(none.exitCode).toBe(2);
    expect(none.json.error.code).toBe('CORDON_BAD_INPUT');
    const unknown = await cordon(['install-hooks', '--agent', 'emacs']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.json.error.code).toBe('CORDON_REGISTRY_MISSING');
    const missing = await cordon(['install-hooks', '--agent', 'claude-code', '--command', 'no-such-cordon-binary']);
    expect(missing.exitCode).toBe(2);
    expect(missing.json.error.code).toBe('CORDON_BAD_INPUT');
    // A bare name on PATH is written as its absolute path.
    const named = await cordon(['install-hooks', '--agent', 'claude-code', '--command', 'node']);
    expect(named.json.agents[0].changes[0].diff).toContain(`"command": "${process.execPath} hook --agent claude-code"`);
  });
});

describe('install-hooks per agent', () => {
  it('project scope writes the project files', async () => {
    const r = await cordon(['install-hooks', '--agent', 'claude-code', '--agent', 'gemini', '--agent', 'cursor', '--agent', 'codex', '--scope', 'project', '--write']);
    expect(r.exitCode, r.stderr).toBe(0);
    for (const path of ['.claude/settings.json', '.gemini/settings.json', '.cursor/hooks.json', '.codex/hooks.json']) expect(read(path, project)).toContain('hook --agent');
    // Codex trust always goes to the user config.toml; the note says the project must be trusted.
    expect(read('.codex/config.toml')).toContain(`[hooks.state."${join(project, '.codex/hooks.json')}:pre_tool_use:0:0"]`);
    expect(r.json.agents.find((a: any) => a.agent === 'codex').notes.join(' ')).toContain('trusted project');
  });

  it('project scope writes a portable `cordon hook` (no machine paths) and warns about files git tracks and a cordon missing from PATH', async () => {
    execFileSync('git', ['init', '-q'], { cwd: project });
    write({ '.claude/settings.json': '{}\n' }, project);
    execFileSync('git', ['add', '.claude/settings.json'], { cwd: project });
    const r = await cordon(['install-hooks', '--agent', 'claude-code', '--agent', 'gemini', '--scope', 'project', '--write']);
    expect(r.exitCode, r.stderr).toBe(0);
    for (const path of ['.claude/settings.json', '.gemini/settings.json']) {
      const text = read(path, project);
      expect(text, path).toMatch(/"cordon hook --agent (claude-code|gemini)"/);
      expect(text, path).not.toContain(process.execPath);
      expect(text, path).not.toContain(CORDON_BIN);
    }
    const claude = r.json.agents.find((a: any) => a.agent === 'claude-code');
    expect(claude.warnings.join('\n')).toContain(`${join(project, '.claude/settings.json')} is tracked by git: once committed, everyone working in this project runs \`cordon hook\``);
    // No `cordon` on this test's PATH: said once per agent; the untracked .gemini file is not called tracked.
    expect(claude.warnings.join('\n')).toContain('there is none on this PATH');
    const gemini = r.json.agents.find((a: any) => a.agent === 'gemini');
    expect(gemini.warnings.join('\n')).not.toContain(' is tracked by git');
    expect(gemini.warnings.join('\n')).toContain('.gemini/settings.json is not tracked by git: commit it');
    // An explicit --command is the user's choice, written as given (made absolute).
    const explicit = await cordon(['install-hooks', '--agent', 'gemini', '--scope', 'project', '--command', 'node']);
    expect(explicit.json.agents[0].changes[0].diff).toContain(`${process.execPath} hook --agent gemini`);
  });

  it('project scope in a repository: an untracked config is named with .git/info/exclude, and so is arm\'s refusal; once excluded, arm works', async () => {
    const git = (args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: project, env });
    git(['init', '-q']);
    write({ 'README.md': '# p\n' }, project);
    git(['add', 'README.md']);
    git(['commit', '-qm', 'init']);
    const r = await runCordon(['install-hooks', '--agent', 'claude-code', '--scope', 'project', '--write'], { env, cwd: project });
    expect(r.exitCode, r.stderr).toBe(0);
    const untracked = `${join(project, '.claude/settings.json')} is not tracked by git: commit it to give everyone in this project the hooks (each needs cordon on PATH), or keep it out of git by adding /.claude/settings.json to .git/info/exclude (git rev-parse --git-path info/exclude names the file); until then \`cordon arm\` and \`cordon run\` refuse the work tree as not clean`;
    expect(r.stdout + r.stderr).toContain(untracked);
    // A --command path of this machine: the same, and why it belongs out of git.
    const own = await cordon(['install-hooks', '--agent', 'gemini', '--scope', 'project', '--command', 'node', '--write']);
    expect(own.json.agents[0].warnings.join('\n')).toContain(`.gemini/settings.json is not tracked by git: it runs \`${process.execPath}\`, a path on this machine only (--command), so keep it out of git by adding /.gemini/settings.json to .git/info/exclude`);

    const armed = await runCordon(['arm', 'x', '--allow', '**'], { env, cwd: project });
    expect(armed.exitCode).toBe(2);
    expect(armed.stderr.replace(/\s+/g, ' ')).toContain(
      'working tree must be clean before cordon arms an envelope (commit or stash first): .claude/settings.json (untracked), .gemini/settings.json (untracked); they are agent hook configs cordon install-hooks wrote: commit them to share the hooks, or keep them out of git by adding /.claude/settings.json and /.gemini/settings.json to .git/info/exclude',
    );
    // Another untracked file too: the plain refusal, no hint.
    write({ 'notes.txt': 'x\n' }, project);
    const other = await runCordon(['arm', 'x', '--allow', '**'], { env, cwd: project });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).not.toContain('info/exclude');
    writeFileSync(join(project, '.git/info/exclude'), '/.claude/settings.json\n/.gemini/settings.json\n/notes.txt\n');
    const again = await runCordon(['install-hooks', '--agent', 'claude-code', '--scope', 'project', '--write'], { env, cwd: project });
    expect(again.stdout + again.stderr).not.toContain('not tracked by git');
    expect((await runCordon(['arm', 'x', '--allow', '**'], { env, cwd: project })).exitCode).toBe(0);
  });

  it('Hermes named at project scope: refused with exit 2 (no project-level hooks), never "already installed"', async () => {
    const hermes = await cordon(['install-hooks', '--agent', 'hermes', '--scope', 'project', '--write']);
    expect(hermes.exitCode).toBe(2);
    expect(hermes.json.error.code).toBe('CORDON_BAD_INPUT');
    expect(hermes.json.error.message).toBe('hermes skipped: Hermes has no project-level hooks (only per-profile config.yaml); use --scope user');
    const human = await runCordon(['install-hooks', '--agent', 'hermes', '--scope', 'project'], { env, cwd: project });
    expect(human.exitCode).toBe(2);
    expect(human.stderr).toContain('Hermes has no project-level hooks');
    expect(human.stdout + human.stderr).not.toContain('already installed');
    const un = await cordon(['uninstall-hooks', '--agent', 'hermes', '--scope', 'project']);
    expect(un.exitCode).toBe(2);
    expect(existsSync(join(home, '.hermes'))).toBe(false);
  });

  it('--all --scope project finds agents by the project\'s config dirs and the user config homes; Hermes is reported skipped', async () => {
    const none = await runCordon(['install-hooks', '--all', '--scope', 'project'], { env, cwd: project });
    expect(none.stdout).toContain('no agent found to configure');
    expect(none.stdout).toContain('name one with --agent NAME to configure it anyway');
    mkdirSync(join(project, '.claude'));
    mkdirSync(join(project, '.gemini'));
    mkdirSync(join(home, '.cursor'));
    mkdirSync(join(home, '.hermes'));
    const r = await cordon(['install-hooks', '--all', '--scope', 'project']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json.agents.map((a: any) => a.agent).sort()).toEqual(['claude-code', 'cursor', 'gemini', 'hermes']);
    expect(r.json.agents.find((a: any) => a.agent === 'claude-code').changes[0].path).toBe(join(project, '.claude/settings.json'));
    expect(r.json.agents.find((a: any) => a.agent === 'cursor').changes[0].path).toBe(join(project, '.cursor/hooks.json'));
    const hermes = r.json.agents.find((a: any) => a.agent === 'hermes');
    expect(hermes.changes).toEqual([]);
    expect(hermes.skipped).toContain('use --scope user');
    const human = await runCordon(['install-hooks', '--all', '--scope', 'project'], { env, cwd: project });
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toContain('== hermes (project)\nskipped: Hermes has no project-level hooks');
    expect(human.stdout).not.toContain('already installed');
    expect(human.stdout).not.toContain('no agent found');
  });

  it('Cursor: refuses a command path with spaces (Cursor splits on them), writes nothing', async () => {
    const executable = (path: string): string => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, '#!/bin/sh\n', { mode: 0o755 });
      return path;
    };
    const spaced = executable(join(home, 'my tools', 'cordon'));
    const r = await cordon(['install-hooks', '--agent', 'cursor', '--command', spaced, '--write']);
    expect(r.exitCode).toBe(2);
    expect(r.json.error.code).toBe('CORDON_CONFIG_EDIT');
    expect(r.json.error.message).toMatch(new RegExp(`the --command path ${spaced.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} contains a space; give a path without spaces$`));
    expect(r.json.error.message).not.toContain('pass --command');
    expect(existsSync(join(home, '.cursor/hooks.json'))).toBe(false);
    const plain = executable(join(home, 'opt', 'cordon'));
    const ok = await cordon(['install-hooks', '--agent', 'cursor', '--command', plain, '--write']);
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(read('.cursor/hooks.json')).hooks.preToolUse).toEqual([{ command: `${plain} hook --agent cursor`, timeout: 30 }]);
  });

  it('refuses a --command that could not start here (missing, a directory, not executable), exit 2, writing nothing; uninstall takes any', async () => {
    const notExecutable = join(home, 'cordon-plain-file');
    writeFileSync(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
    for (const [command, why] of [
      ['/nonexistent/cordon', 'no such file'],
      [home, 'is a directory'],
      [notExecutable, 'not executable'],
    ] as const) {
      for (const write of [[], ['--write']]) {
        const r = await cordon(['install-hooks', '--agent', 'gemini', '--command', command, ...write]);
        expect(r.exitCode, command).toBe(2);
        expect(r.json.error).toMatchObject({ code: 'CORDON_BAD_INPUT', message: `--command ${command}: ${why}, so the agents could not run the hook; give the path of a cordon executable, or leave --command out to write this node and this cordon` });
      }
    }
    expect(existsSync(join(home, '.gemini'))).toBe(false);
    // A relative path is named as given and as made absolute.
    const relative = await cordon(['install-hooks', '--agent', 'gemini', '--command', './bin/cordon']);
    expect(relative.json.error.message).toBe(`--command ./bin/cordon (${join(project, 'bin/cordon')}): no such file, so the agents could not run the hook; give the path of a cordon executable, or leave --command out to write this node and this cordon`);
    // Hooks written by a cordon that has since gone are still found and removed.
    write({ '.gemini/settings.json': JSON.stringify({ hooks: { BeforeTool: [{ matcher: '.*', hooks: [{ type: 'command', command: '/nonexistent/cordon hook --agent gemini' }] }] } }, null, 2) + '\n' });
    const un = await cordon(['uninstall-hooks', '--agent', 'gemini', '--command', '/nonexistent/cordon', '--write']);
    expect(un.exitCode, un.stderr).toBe(0);
    expect(read('.gemini/settings.json')).not.toContain('/nonexistent/cordon');
  });

  it('Hermes --accept records consent for exactly the installed (event, command) pairs; uninstall takes it back', async () => {
    write({ '.hermes/shell-hooks-allowlist.json': JSON.stringify({ approvals: [{ event: 'pre_tool_call', command: '~/.hermes/agent-hooks/guard.sh' }] }, null, 2) + '\n' });
    const r = await cordon(['install-hooks', '--agent', 'hermes', '--write', '--accept']);
    expect(r.exitCode, r.stderr).toBe(0);
    const approvals = JSON.parse(read('.hermes/shell-hooks-allowlist.json')).approvals;
    expect(approvals).toEqual([
      { event: 'pre_tool_call', command: '~/.hermes/agent-hooks/guard.sh' },
      ...['pre_tool_call', 'post_tool_call', 'on_session_start', 'on_session_finalize'].map((event) => ({ event, command: COMMAND('hermes') })),
    ]);
    await cordon(['uninstall-hooks', '--agent', 'hermes', '--write']);
    expect(JSON.parse(read('.hermes/shell-hooks-allowlist.json')).approvals).toEqual([{ event: 'pre_tool_call', command: '~/.hermes/agent-hooks/guard.sh' }]);
    expect(existsSync(join(home, '.hermes/config.yaml'))).toBe(false);
  });

  it('Codex: a stale cordon entry (old install path) is replaced, and the user hook behind it keeps its trust', async () => {
    const stale = '/old/place/cordon hook --agent codex';
    const hooksPath = join(home, '.codex/hooks.json');
    write({
      '.codex/hooks.json': JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: stale }] }, { matcher: 'Bash', hooks: [{ type: 'command', command: '/usr/local/bin/after' }] }] } }, null, 2) + '\n',
      '.codex/config.toml': `[hooks.state."${hooksPath}:pre_tool_use:1:0"]\ntrusted_hash = "sha256:user"\n`,
    });
    const r = await cordon(['install-hooks', '--agent', 'codex', '--write']);
    expect(r.exitCode, r.stderr).toBe(0);
    const pre = JSON.parse(read('.codex/hooks.json')).hooks.PreToolUse;
    expect(pre.map((g: any) => g.hooks[0].command)).toEqual(['/usr/local/bin/after', COMMAND('codex')]);
    const state = (parseToml(read('.codex/config.toml')) as any).hooks.state;
    expect(state[`${hooksPath}:pre_tool_use:0:0`].trusted_hash).toBe('sha256:user');
    expect(state[`${hooksPath}:pre_tool_use:1:0`].trusted_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('a cordon that moved: the old command is said to point to a cordon (or node) that no longer exists, and to be replaced', async () => {
    const gone = '/opt/gone/cordon/bin/run.cjs';
    for (const agent of ['claude-code', 'cursor'] as const) expect((await cordon(['install-hooks', '--agent', agent, '--write'])).exitCode).toBe(0);
    const files = { 'claude-code': '.claude/settings.json', cursor: '.cursor/hooks.json' };
    for (const path of Object.values(files)) writeFileSync(join(home, path), read(path).split(CORDON_BIN).join(gone));
    const human = await runCordon(['install-hooks', '--agent', 'claude-code', '--agent', 'cursor'], { env, cwd: project });
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toContain(`would write ${join(home, files['claude-code'])}: the old hook command pointed to a cordon that no longer exists at ${gone}: replace it with this cordon's in PreToolUse, PostToolUse, PostToolUseFailure, SessionStart, SessionEnd\n`);
    expect(human.stdout).toContain(`would write ${join(home, files.cursor)}: the old hook command pointed to a cordon that no longer exists at ${gone}: replace it with this cordon's in preToolUse, postToolUse, postToolUseFailure, sessionStart, sessionEnd\n`);
    expect(human.stdout).not.toContain('with another command');
    const written = await cordon(['install-hooks', '--agent', 'claude-code', '--write']);
    expect(written.json.agents[0].changes[0].summary).toMatch(/^the old hook command pointed to a cordon that no longer exists at /);
    expect(read(files['claude-code'])).not.toContain(gone);
    // The node before the script gone (an upgrade removed it) is said as such.
    writeFileSync(join(home, files['claude-code']), read(files['claude-code']).split(process.execPath).join('/opt/old-node/bin/node'));
    const node = await cordon(['install-hooks', '--agent', 'claude-code']);
    expect(node.json.agents[0].changes[0].summary).toMatch(/^the old hook command pointed to a node that no longer exists at \/opt\/old-node\/bin\/node: replace it/);
    // A command that still runs is another command, said as before.
    writeFileSync(join(home, files['claude-code']), read(files['claude-code']).split('/opt/old-node/bin/node').join('/bin/sh'));
    expect((await cordon(['install-hooks', '--agent', 'claude-code'])).json.agents[0].changes[0].summary).toContain('removed cordon handler with another command (/bin/sh ');
  });

  it('Codex: the trust entries written are the ones the real codex app-server computes (hooks/list), and it checks them', async () => {
    const codex = requireAgent('codex');
    write(userFiles());
    const withCodex = { PATH: `${dirname(codex.bin)}${delimiter}${env.PATH}` };
    const r = await cordon(['install-hooks', '--agent', 'codex', '--write'], withCodex);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json.agents[0].notes.join(' ')).toMatch(/checked with codex app-server hooks\/list: 4 cordon hook\(s\) listed, 4 trusted/);
    const listed = await listHooks(codex.bin, { env: { ...env, ...withCodex }, cwd: project });
    const ours = listed.filter((h) => h.command === COMMAND('codex'));
    expect(ours).toHaveLength(4);
    expect(ours.every((h) => h.trustStatus === 'trusted')).toBe(true);
    // The user's own hook keeps the trust it had (cordon's group went after it).
    expect(listed.find((h) => h.command === '/usr/local/bin/codex-guard')?.trustStatus).toBe('trusted');
  }, 60_000);

  it("Codex: the app-server check leaves nothing in CODEX_HOME (install, doctor), and uninstall removes the ~/.codex install created", async () => {
    const codex = requireAgent('codex');
    // The scratch home goes to TMPDIR: it must be gone afterwards too.
    const scratch = sandbox.dir('tmp');
    const withCodex = { PATH: `${dirname(codex.bin)}${delimiter}${env.PATH}`, TMPDIR: scratch };
    expect(existsSync(join(home, '.codex'))).toBe(false);
    const r = await cordon(['install-hooks', '--agent', 'codex', '--write'], withCodex);
    expect(r.exitCode, r.stderr).toBe(0);
    // The check still ran, on copies: the keys name the real hooks file.
    expect(r.json.agents[0].notes.join(' ')).toMatch(/checked with codex app-server hooks\/list: 4 cordon hook\(s\) listed, 4 trusted/);
    expect(readdirSync(join(home, '.codex')).sort()).toEqual(['config.toml', 'hooks.json']);
    expect(Object.keys((parseToml(read('.codex/config.toml')) as any).hooks.state).every((k) => k.startsWith(`${join(home, '.codex/hooks.json')}:`))).toBe(true);
    const doctor = await cordon(['doctor'], withCodex);
    expect(doctor.json.findings.filter((f: any) => f.check === 'hooks:codex:user').map((f: any) => f.message)).toEqual(['hooks installed and current; checked with codex app-server hooks/list: 4 cordon hook(s) listed, 4 trusted']);
    expect(readdirSync(join(home, '.codex')).sort()).toEqual(['config.toml', 'hooks.json']);
    expect(readdirSync(scratch)).toEqual([]);
    const un = await cordon(['uninstall-hooks', '--agent', 'codex', '--write'], withCodex);
    expect(un.exitCode, un.stderr).toBe(0);
    expect(existsSync(join(home, '.codex'))).toBe(false);
  }, 90_000);

  it('Codex: a --command of any name (a wrapper script) is trusted too, and a second install adds nothing', async () => {
    const codex = requireAgent('codex');
    const withCodex = { PATH: `${dirname(codex.bin)}${delimiter}${env.PATH}` };
    const wrapper = join(home, 'bin', 'my-hook-wrapper');
    mkdirSync(dirname(wrapper), { recursive: true });
    writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${CORDON_BIN}' "$@"\n`, { mode: 0o755 });
    const r = await cordon(['install-hooks', '--agent', 'codex', '--write', '--command', wrapper], withCodex);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json.agents[0].warnings).toEqual([]);
    expect(r.json.agents[0].notes.join(' ')).toMatch(/4 cordon hook\(s\) listed, 4 trusted/);
    const again = await cordon(['install-hooks', '--agent', 'codex', '--write', '--command', wrapper], withCodex);
    expect(again.json.agents[0].changes).toEqual([]);
    const listed = await listHooks(codex.bin, { env: { ...env, ...withCodex }, cwd: project });
    expect(listed.filter((h) => h.command === `${wrapper} hook --agent codex`).map((h) => h.trustStatus)).toEqual(['trusted', 'trusted', 'trusted', 'trusted']);
  }, 60_000);
});
