import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, makeSandbox, runProcess, type Sandbox } from '../../../../test/support/cli.js';
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
