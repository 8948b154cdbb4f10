import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { makeRepo, writeFiles } from '../../../../test/support/git.js';
import { privateTmux } from '../../../../test/support/tmux.js';
import { waitFor } from '../../../../test/support/wait.js';
import { elapsedText } from '../../src/output/status.js';

// On a terminal a long step says what it is doing and for how long (a status line on stderr,
// cleared before the result); piped or under --json nothing extra is printed. Through tmux.

let box: Sandbox;
const tmux = privateTmux('cordon-progress');
beforeEach(() => (box = makeSandbox('cordon-progress-')));
afterEach(() => {
  tmux.kill();
  box.cleanup();
});
const screen = () => tmux.screen('p');

describe('status line', () => {
  it('check on a terminal shows the verifier running and its time, then only the verdict; piped there is none', async () => {
    const repo = makeRepo(box.dir('repo'), { 'src/a.txt': 'a\n' }, box.env);
    const release = `${box.root}/release`;
    const verify = `sh -c 'while [ ! -e ${release} ]; do sleep 0.1; done'`;
    expect((await runCordon(['arm', 'x', '--allow', 'src/**', '--verify', verify], { cwd: repo, env: box.env })).exitCode).toBe(0);
    writeFiles(repo, { 'src/a.txt': 'b\n' });
    const env = { ...box.env, TERM: 'xterm' };
    expect(tmux.run(['new-session', '-d', '-s', 'p', '-x', '200', '-y', '20', '-c', repo, 'sh', '-c', `'${process.execPath}' '${CORDON_BIN}' check; echo EXIT=$?; sleep 600`], env).status).toBe(0);
    await waitFor(() => /cordon check: verifier 1\/1 running: sh -c .* · \d+ s/.test(screen()), { what: 'the status line', timeoutMs: 60_000 });
    await waitFor(() => / · [1-9]\d* s/.test(screen()), { what: 'the elapsed time ticking', timeoutMs: 60_000 });
    writeFiles(box.root, { release: '' });
    const done = await waitFor(() => (/EXIT=0/.test(screen()) ? screen() : undefined), { what: 'the verdict', timeoutMs: 60_000 });
    expect(done).toMatch(/accepted/);
    expect(done).not.toContain('verifier 1/1 running');

    // Piped (and under --json): no status line, no carriage return or escape.
    writeFiles(box.root, {});
    const piped = await runCordon(['check'], { cwd: repo, env: box.env });
    expect(piped.exitCode).toBe(0);
    expect(piped.stderr).not.toMatch(/[\r\u001b]/);
    expect(piped.stdout).not.toMatch(/[\r\u001b]/);
  });

  it('elapsed time reads as seconds, minutes and hours', () => {
    expect(elapsedText(12_400)).toBe('12 s');
    expect(elapsedText(184_000)).toBe('3 min 04 s');
    expect(elapsedText(3_725_000)).toBe('1 h 02 min');
  });
});
