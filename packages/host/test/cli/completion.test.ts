import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, linkPlugins, makeSandbox, REPO_ROOT, runCordon, runProcess, type Sandbox } from '../../../../test/support/cli.js';
import { privateTmux } from '../../../../test/support/tmux.js';

// Shell completion (bundled @oclif/plugin-autocomplete) in a real bash, typed through tmux: the
// setup line `cordon autocomplete script bash` prints goes into the user's .bashrc, then
// <TAB> completes command names, topic subcommands and flags.

let box: Sandbox;
const tmux = privateTmux('cordon-completion');
beforeEach(() => (box = makeSandbox('cordon-completion-')));
afterEach(() => {
  tmux.kill();
  box.cleanup();
});

async function screenShows(pattern: RegExp, what: string): Promise<string> {
  let screen = '';
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    screen = tmux.screen('sh');
    if (pattern.test(screen)) return screen;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: the screen never showed ${pattern}:\n${screen}`);
}

// tmux comes from scripts/test-prepare.sh; without it this fails rather than skips.
describe('cordon completion in bash', () => {
  it('completes commands, topic commands and flags after the documented setup', async () => {
    const bin = box.dir('bin');
    writeFileSync(join(bin, 'cordon'), `#!/bin/sh\nexec '${process.execPath}' '${CORDON_BIN}' "$@"\n`);
    chmodSync(join(bin, 'cordon'), 0o755);
    const env = { ...box.env, PATH: `${bin}:${process.env.PATH}`, TERM: 'xterm', PS1: 'ready$ ' };
    // The setup the README gives: append `cordon autocomplete script bash` to ~/.bashrc.
    const script = await runProcess(['cordon', 'autocomplete', 'script', 'bash'], { env });
    expect(script.exitCode, script.stderr).toBe(0);
    expect(script.stdout).toContain('CORDON_AC_BASH_SETUP_PATH=');
    writeFileSync(join(box.home, '.bashrc'), `PS1='ready$ '\n${script.stdout}\n`);
    // The completion cache is built on first use of `cordon autocomplete`.
    expect((await runProcess(['cordon', 'autocomplete', '--refresh-cache'], { env })).exitCode).toBe(0);

    expect(tmux.run(['new-session', '-d', '-s', 'sh', '-x', '200', '-y', '50', 'bash', '--rcfile', join(box.home, '.bashrc'), '-i'], env).status).toBe(0);
    await screenShows(/ready\$ $/m, 'bash start');
    tmux.run(['send-keys', '-t', 'sh', '-l', 'cordon chec']);
    tmux.run(['send-keys', '-t', 'sh', 'Tab']);
    await screenShows(/ready\$ cordon check $/m, 'command name');
    tmux.run(['send-keys', '-t', 'sh', 'C-u']);
    tmux.run(['send-keys', '-t', 'sh', '-l', 'cordon control pro']);
    tmux.run(['send-keys', '-t', 'sh', 'Tab']);
    await screenShows(/ready\$ cordon control probe $/m, 'topic command');
    tmux.run(['send-keys', '-t', 'sh', 'C-u']);
    tmux.run(['send-keys', '-t', 'sh', '-l', 'cordon install-hooks --wr']);
    tmux.run(['send-keys', '-t', 'sh', 'Tab']);
    await screenShows(/ready\$ cordon install-hooks --write $/m, 'flag');
  }, 180_000);
});

/** The words that occur more than once in `words`. */
const repeated = (words: readonly string[]): string[] => [...new Set(words.filter((w, i) => words.indexOf(w) !== i))];

// cordon replaces oclif's `plugins`, `plugins inspect`, `plugins install` (alias `add`) and
// `plugins link` with commands of its own; the completion scripts, which oclif's autocomplete
// plugin builds from every plugin's command list, offered both (`cordon plugins <TAB>`:
// `inspect install add link inspect install add link reset …`; cli/shadowed-commands.ts).
describe('the completion cache lists every command once', () => {
  it('in the bash, zsh and PowerShell scripts `cordon autocomplete --refresh-cache` writes', async () => {
    linkPlugins(box.dataDir, ['codex', 'aider']);
    const built = await runCordon(['autocomplete', '--refresh-cache'], { env: box.env });
    expect(built.exitCode, built.stderr).toBe(0);
    const functions = join(box.cacheDir, 'autocomplete', 'functions');

    // bash: one line per command id (and alias), `id --flag …`, between `local commands="` and `"`.
    const bash = readFileSync(join(functions, 'bash', 'cordon.bash'), 'utf8');
    const ids = /local commands="\n([\s\S]*?)\n"/.exec(bash)![1]!.split('\n').map((line) => line.split(' ')[0]!);
    expect(ids).toEqual(expect.arrayContaining(['plugins', 'plugins:inspect', 'plugins:install', 'plugins:add', 'plugins:link', 'plugins:uninstall', 'pcodx:show', 'wrap', 'check']));
    expect(repeated(ids)).toEqual([]);
    // What bash's completion function answers for `cordon plugins <TAB>` (COMPREPLY, before
    // readline sorts it and drops repeats from the list it shows).
    const reply = await runProcess(
      ['bash', '--norc', '--noprofile', '-c', 'source "$1"; COMP_WORDS=(cordon plugins ""); COMP_CWORD=2; _cordon_autocomplete; printf "%s\\n" "${COMPREPLY[@]}"', 'bash', join(functions, 'bash', 'cordon.bash')],
      { env: box.env },
    );
    expect(reply.exitCode, reply.stderr).toBe(0);
    expect(reply.stdout.trim().split('\n').sort()).toEqual(['add', 'inspect', 'install', 'link', 'remove', 'reset', 'uninstall', 'unlink', 'update']);

    // zsh: the `plugins` topic's subcommands (`_values`) and their flag cases.
    const zsh = readFileSync(join(functions, 'zsh', '_cordon'), 'utf8');
    const topic = /^_cordon_plugins\(\) \{\n([\s\S]*?)\n\}\n/m.exec(zsh)![1]!;
    const offered = [...topic.matchAll(/^"([a-z-]+)\[/gm)].map((m) => m[1]!);
    expect(offered.sort()).toEqual(['add', 'inspect', 'install', 'link', 'remove', 'reset', 'uninstall', 'unlink', 'update']);
    expect(repeated([...topic.matchAll(/^ {8}"([a-z-]+)"\)$/gm)].map((m) => m[1]!))).toEqual([]);
    const top = [.../^_cordon\(\) \{[\s\S]*?_values "completions" \\\n([\s\S]*?)\n\n/m.exec(zsh)![1]!.matchAll(/^"([a-z-]+)\[/gm)].map((m) => m[1]!);
    expect(top).toEqual(expect.arrayContaining(['plugins', 'check', 'wrap', 'pcodx']));
    expect(repeated(top)).toEqual([]);

    // PowerShell: one hashtable entry per subcommand of the topic.
    const pwsh = readFileSync(join(functions, 'powershell', 'cordon.ps1'), 'utf8');
    const plugins = /^"plugins" = @\{\n([\s\S]*?)^\}\n\n/m.exec(pwsh)![1]!;
    const entries = [...plugins.matchAll(/^"([a-z-]+)" = @\{$/gm)].map((m) => m[1]!);
    expect(entries.sort()).toEqual(['add', 'inspect', 'install', 'link', 'remove', 'reset', 'uninstall', 'unlink', 'update']);
  }, 60_000);
});


// Found by a hostile-input probe: oclif's completion pasted the cache directory bare into the
// setup line (`CORDON_AC_BASH_SETUP_PATH=/a b/… && source $…`) and plugin command ids, flag names
// and summaries into double-quoted bash, zsh and PowerShell strings, so a space or `$(…)` in the
// path, or a plugin summary saying `$(cmd)`, ran commands in the user's shell
// (cli/completion-setup.ts, cli/completion-safe.ts).
describe('the completion scripts are safe to eval', () => {
  it('with `$(…)` and a space in the cache path and quotes, `$(…)`, backticks and newlines in a plugin command', async () => {
    const cacheDir = join(box.root, 'ca che$(touch PWNED_PATH)');
    mkdirSync(cacheDir);
    const plugin = box.dir('evil-plugin');
    mkdirSync(join(plugin, 'commands'));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(plugin, 'node_modules'));
    writeFileSync(join(plugin, 'package.json'), JSON.stringify({ name: 'cordon-plugin-evil', version: '1.0.0', type: 'module', oclif: { commands: './commands', topicSeparator: ' ' } }));
    writeFileSync(
      join(plugin, 'commands', 'evil.js'),
      [
        "import { Command, Flags } from '@oclif/core';",
        'export default class Evil extends Command {',
        `  static summary = ${JSON.stringify('say "hi" $(touch PWNED_SUMMARY) `touch PWNED_TICK` \u201c$(touch PWNED_PS)\u201d [x] \\ <%= 1 %>')};`,
        `  static description = ${JSON.stringify('first\n$(touch PWNED_DESC)')};`,
        `  static flags = { ${JSON.stringify('fl$(touch PWNED_FLAG)')}: Flags.boolean({ summary: 'x' }), ok: Flags.boolean({ summary: ${JSON.stringify('flag "x" $(touch PWNED_FSUM)')} }) };`,
        '  async run() {}',
        '}',
      ].join('\n'),
    );
    const data = JSON.parse(JSON.stringify({ name: '@cordon/host', private: true, dependencies: {}, oclif: { schema: 1, plugins: [{ name: 'cordon-plugin-evil', root: plugin, type: 'link' }] } }));
    writeFileSync(join(box.dataDir, 'package.json'), JSON.stringify(data));
    const env = { ...box.env, CORDON_CACHE_DIR: cacheDir };
    const built = await runCordon(['autocomplete', '--refresh-cache'], { env, cwd: box.root });
    expect(built.exitCode, built.stderr).toBe(0);
    const script = await runCordon(['autocomplete', 'script', 'bash'], { env, cwd: box.root });
    expect(script.exitCode, script.stderr).toBe(0);
    // The documented setup, then <TAB> after `cordon ev` and after `cordon evil --`.
    const reply = await runProcess(
      ['bash', '--norc', '--noprofile', '-c', 'eval "$1"; for w in ev --; do COMP_WORDS=(cordon evil "$w"); [ "$w" = ev ] && COMP_WORDS=(cordon ev); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _cordon_autocomplete; printf "%s\\n" "${COMPREPLY[@]}"; done', 'bash', script.stdout],
      { env, cwd: box.root },
    );
    expect(reply.exitCode, reply.stderr).toBe(0);
    expect(reply.stdout.split('\n')).toEqual(expect.arrayContaining(['evil', '--ok']));
    expect(readdirSync(box.root).filter((f) => f.startsWith('PWNED'))).toEqual([]);
    // zsh and PowerShell are not installed here: their scripts hold no expansion of the plugin's text.
    const zsh = readFileSync(join(cacheDir, 'autocomplete', 'functions', 'zsh', '_cordon'), 'utf8');
    const pwsh = readFileSync(join(cacheDir, 'autocomplete', 'functions', 'powershell', 'cordon.ps1'), 'utf8');
    for (const text of [zsh, pwsh]) {
      expect(text).not.toMatch(/\$\(touch|`touch|\u201c|<%|PWNED_DESC|PWNED_FLAG/);
      expect(text).toContain("say 'hi' (touch PWNED_SUMMARY) 'touch PWNED_TICK' '(touch PWNED_PS)' (x) < %= 1 % >");
    }
    expect(readFileSync(join(cacheDir, 'autocomplete', 'zsh_setup'), 'utf8')).toContain(`'${join(cacheDir, 'autocomplete', 'functions', 'zsh')}'`);
    expect((await runCordon(['autocomplete', 'script', 'powershell'], { env })).stdout.trim()).toBe(`. '${join(cacheDir, 'autocomplete', 'functions', 'powershell', 'cordon.ps1')}'`);
  }, 90_000);
});
