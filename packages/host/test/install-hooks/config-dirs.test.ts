import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { cordonJson, hooksSandbox } from './support.js';

// install-hooks, --check, uninstall-hooks and doctor where the agent's config directory is not a
// directory: a regular file, a link to a file or to /dev/null, a dangling link (dotfiles not yet
// there). Found by a hostile-input probe: the first three failed as the plugin's own failure
// (`CORDON_PLUGIN_ERROR: plugin "gemini" failed in hook "install-hooks": ENOTDIR: not a
// directory, open …`), the dangling link passed the dry run and --check and failed on writing
// with `EEXIST: file already exists, mkdir '~/.cursor'`.

let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;
let home: string;
let project: string;

beforeEach(() => {
  ({ sandbox, home, project, env } = hooksSandbox('cordon-hooks-config-dirs-'));
});
afterEach(() => sandbox.cleanup());

describe('an agent config directory that is not a directory', () => {
  it('is refused naming it and what it is (CORDON_CONFIG_EDIT, exit 2) by install, --check and uninstall, reported by doctor, nothing written', async () => {
    const dots = sandbox.dir('dotfiles');
    writeFileSync(join(home, '.claude'), 'not a directory\n');
    writeFileSync(join(dots, 'codex'), 'a file\n');
    symlinkSync(join(dots, 'codex'), join(home, '.codex'));
    symlinkSync('/dev/null', join(home, '.gemini'));
    symlinkSync(join(dots, 'cursor'), join(home, '.cursor'));
    symlinkSync(join(dots, 'missing', 'hermes'), join(home, '.hermes'));
    const notDir = (dir: string, kind: string) => `${home}/${dir} on its path is ${kind}, not a directory`;
    const dangling = (dir: string, target: string) => `its directory ${home}/${dir} is a symbolic link to ${target}, which does not exist`;
    const cases: Array<[string, string, string, string]> = [
      ['claude-code', '.claude/settings.json', notDir('.claude', 'a regular file'), 'refusing to edit it: move it away or make it a directory, then run again; nothing was written'],
      ['codex', '.codex/hooks.json', notDir('.codex', `a symbolic link to ${join(dots, 'codex')}, a regular file`), 'refusing to edit it: move it away or make it a directory, then run again; nothing was written'],
      ['gemini', '.gemini/settings.json', notDir('.gemini', 'a symbolic link to /dev/null, a character device'), 'refusing to edit it: move it away or make it a directory, then run again; nothing was written'],
      ['cursor', '.cursor/hooks.json', dangling('.cursor', join(dots, 'cursor')), `cordon does not create a directory where a dangling link points: create ${join(dots, 'cursor')} or remove the link, then run again; nothing was written`],
      ['hermes', '.hermes/config.yaml', dangling('.hermes', join(dots, 'missing', 'hermes')), `cordon does not create a directory where a dangling link points: create ${join(dots, 'missing', 'hermes')} or remove the link, then run again; nothing was written`],
    ];
    for (const [agent, path, problem, rest] of cases) {
      for (const args of [['install-hooks', '--write'], ['install-hooks', '--check'], ['install-hooks'], ['uninstall-hooks', '--write']]) {
        const r = await cordonJson([...args, '--agent', agent], env, project);
        expect([agent, args.join(' '), r.exitCode], r.stderr).toEqual([agent, args.join(' '), 2]);
        expect(r.json.error.code).toBe('CORDON_CONFIG_EDIT');
        expect(r.json.error.message).toBe(`${join(home, path)}: ${problem}; ${rest}`);
      }
    }
    const doctor = await runCordon(['doctor'], { env, cwd: project });
    for (const [agent, path, problem] of cases) {
      const row = doctor.stdout.split('\n').find((l) => l.includes(`hooks:${agent}:user`));
      expect(row, agent).toContain(`cannot read the config: ${join(home, path)}: ${problem}`);
    }
    expect(readFileSync(join(home, '.claude'), 'utf8')).toBe('not a directory\n');
    expect(readFileSync(join(dots, 'codex'), 'utf8')).toBe('a file\n');
    expect(readlinkSync(join(home, '.gemini'))).toBe('/dev/null');
    expect(lstatSync(join(home, '.cursor')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(dots, 'cursor'))).toBe(false);
    expect(existsSync(join(dots, 'missing'))).toBe(false);
    expect(existsSync(join(sandbox.dataDir, 'install-hooks.json'))).toBe(false);
  });
});

// Found by a hostile-input probe: Gemini CLI reads its user settings from
// $GEMINI_CLI_HOME/.gemini/settings.json when that variable is set (gemini-cli core
// utils/paths.ts homedir()), but install-hooks wrote ~/.gemini/settings.json, which that Gemini
// never reads, and --check and doctor called the hooks installed.
describe('GEMINI_CLI_HOME', () => {
  it('install, --check, --all and uninstall use $GEMINI_CLI_HOME/.gemini/settings.json, never ~/.gemini', async () => {
    const geminiHome = sandbox.dir('gemini-home');
    const settings = join(geminiHome, '.gemini', 'settings.json');
    mkdirSync(join(geminiHome, '.gemini'));
    writeFileSync(settings, '{\n  // mine\n  "ui": {"theme": "GitHub"}\n}\n');
    const withHome = { ...env, GEMINI_CLI_HOME: geminiHome };
    const all = await cordonJson(['install-hooks', '--all'], withHome, project);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.json.agents.map((a: { agent: string }) => a.agent)).toEqual(['gemini']);
    const install = await cordonJson(['install-hooks', '--agent', 'gemini', '--write'], withHome, project);
    expect(install.exitCode, install.stderr).toBe(0);
    expect(install.json.agents[0].changes.map((c: { path: string }) => c.path)).toEqual([settings]);
    expect(readFileSync(settings, 'utf8')).toContain('hook --agent gemini');
    expect(existsSync(join(home, '.gemini'))).toBe(false);
    expect((await cordonJson(['install-hooks', '--agent', 'gemini', '--check'], withHome, project)).exitCode).toBe(0);
    // Without the variable the user file at ~/.gemini holds no hooks: --check says so.
    expect((await cordonJson(['install-hooks', '--agent', 'gemini', '--check'], env, project)).exitCode).toBe(1);
    const uninstall = await cordonJson(['uninstall-hooks', '--agent', 'gemini', '--write'], withHome, project);
    expect(uninstall.exitCode, uninstall.stderr).toBe(0);
    expect(readFileSync(settings, 'utf8')).toBe('{\n  // mine\n  "ui": {"theme": "GitHub"}\n}\n');
    expect(existsSync(join(home, '.gemini'))).toBe(false);
  });

  it('one that is not an absolute path is refused (CORDON_BAD_INPUT), nothing created', async () => {
    for (const [value, tilde] of [['~/g', true], ['rel/g', false]] as const) {
      const r = await cordonJson(['install-hooks', '--agent', 'gemini', '--write'], { ...env, GEMINI_CLI_HOME: value }, project);
      expect([value, r.exitCode]).toEqual([value, 2]);
      expect(r.json.error.code).toBe('CORDON_BAD_INPUT');
      expect(r.json.error.message).toContain(`GEMINI_CLI_HOME is ${JSON.stringify(value)}, not an absolute path${tilde ? ' (Gemini CLI does not expand "~" in it)' : ''};`);
    }
    expect(readdirSync(project)).toEqual([]);
  });

  // Found by a hostile-input probe: a project-scope install, whose file is the project's own
  // .gemini/settings.json, was refused for a relative GEMINI_CLI_HOME too (its note names the
  // user directory's trustedFolders.json), and doctor reported the project row as unreadable.
  it('one that is not an absolute path does not stop a project-scope install', async () => {
    const r = await cordonJson(['install-hooks', '--agent', 'gemini', '--scope', 'project', '--write'], { ...env, GEMINI_CLI_HOME: 'rel/g' }, project);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json.agents[0].changes.map((c: { path: string }) => c.path)).toEqual([join(project, '.gemini', 'settings.json')]);
    expect(r.json.agents[0].notes.join('\n')).toContain('trustedFolders.json in Gemini CLI\'s user directory (.gemini under GEMINI_CLI_HOME, which is "rel/g": not an absolute path)');
  });
});

// Found by a hostile-input probe: HERMES_HOME was used as given. Hermes strips white space from
// it (hermes_constants.py get_process_hermes_home), so with HERMES_HOME=" " Hermes read
// ~/.hermes while install-hooks wrote " /config.yaml" under the current directory; "~/hh" and
// "rel/hh" created "~/hh/config.yaml" and "rel/hh/config.yaml" there, which Hermes reads only
// when started in that same directory. HERMES_DATA_DIR_SUFFIX, which Hermes appends to the
// default ~/.hermes, was not read.
describe('HERMES_HOME', () => {
  it('is stripped as Hermes strips it; one that is not absolute is refused (CORDON_BAD_INPUT) with nothing created; the default takes HERMES_DATA_DIR_SUFFIX', async () => {
    const blank = await cordonJson(['install-hooks', '--agent', 'hermes', '--write'], { ...env, HERMES_HOME: ' \t' }, project);
    expect(blank.exitCode, blank.stderr).toBe(0);
    expect(blank.json.agents[0].changes.map((c: { path: string }) => c.path)).toEqual([join(home, '.hermes', 'config.yaml')]);
    const spaced = sandbox.dir('hermes-home');
    const padded = await cordonJson(['install-hooks', '--agent', 'hermes'], { ...env, HERMES_HOME: ` ${spaced}\n` }, project);
    expect(padded.json.agents[0].changes.map((c: { path: string }) => c.path)).toEqual([join(spaced, 'config.yaml')]);
    for (const [value, tilde] of [['~/hh', true], ['rel/hh', false]] as const) {
      for (const args of [['install-hooks', '--write'], ['uninstall-hooks', '--write']]) {
        const r = await cordonJson([...args, '--agent', 'hermes'], { ...env, HERMES_HOME: value }, project);
        expect([value, args[0], r.exitCode]).toEqual([value, args[0], 2]);
        expect(r.json.error.code).toBe('CORDON_BAD_INPUT');
        expect(r.json.error.message).toContain(`HERMES_HOME is ${JSON.stringify(value)}, not an absolute path${tilde ? ' (Hermes does not expand "~" in HERMES_HOME' : ';'}`);
      }
    }
    expect(readdirSync(project)).toEqual([]);
    const suffixed = await cordonJson(['install-hooks', '--agent', 'hermes'], { ...env, HERMES_DATA_DIR_SUFFIX: '-work' }, project);
    expect(suffixed.json.agents[0].changes.map((c: { path: string }) => c.path)).toEqual([join(home, '.hermes-work', 'config.yaml')]);
  });
});

// Found by a hostile-input probe: CLAUDE_CONFIG_DIR was used as given, so "rel", "~/cc" and
// " /abs" (a pasted space) made install write "rel/settings.json", "~/cc/settings.json" and
// " /abs/settings.json" below the current directory (keyed by that relative path in the install
// record), which Claude Code, taking the variable as it is, reads only when started there.
describe('CLAUDE_CONFIG_DIR', () => {
  it('one that is not an absolute path is refused (CORDON_BAD_INPUT) by install and uninstall, nothing created; an absolute one with trailing slashes is used', async () => {
    for (const [value, tilde] of [['~/cc', true], ['rel/cc', false], [' /abs/cc', false]] as const) {
      for (const args of [['install-hooks', '--write'], ['uninstall-hooks', '--write'], ['install-hooks', '--check']]) {
        const r = await cordonJson([...args, '--agent', 'claude-code'], { ...env, CLAUDE_CONFIG_DIR: value }, project);
        expect([value, args.join(' '), r.exitCode]).toEqual([value, args.join(' '), 2]);
        expect(r.json.error.code).toBe('CORDON_BAD_INPUT');
        expect(r.json.error.message).toContain(`CLAUDE_CONFIG_DIR is ${JSON.stringify(value)}, not an absolute path${tilde ? ' (Claude Code does not expand "~" in it)' : ''};`);
      }
    }
    expect(readdirSync(project)).toEqual([]);
    const dir = sandbox.dir('claude-home');
    const slashed = await cordonJson(['install-hooks', '--agent', 'claude-code', '--write'], { ...env, CLAUDE_CONFIG_DIR: `${dir}///` }, project);
    expect(slashed.exitCode, slashed.stderr).toBe(0);
    expect(slashed.json.agents[0].changes.map((c: { path: string }) => c.path)).toEqual([join(dir, 'settings.json')]);
    const empty = await cordonJson(['install-hooks', '--agent', 'claude-code'], { ...env, CLAUDE_CONFIG_DIR: '' }, project);
    expect(empty.json.agents[0].changes.map((c: { path: string }) => c.path)).toEqual([join(home, '.claude', 'settings.json')]);
  });
});
