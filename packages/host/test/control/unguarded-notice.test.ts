import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON_BIN, makeSandbox, runCordon, type Sandbox } from '../../../../test/support/cli.js';
import { privateTmux } from '../../../../test/support/tmux.js';
import { waitFor } from '../../../../test/support/wait.js';

// A person who typed `cordon control run --hint memory:low -- cmd` on a machine where nothing can
// enforce saw only the command's output, and took the limit to hold (a fresh-user walkthrough).
// With stderr on a terminal, an unguarded run now says so in one line after the command; an
// agent's tool call (stderr piped) still gets exactly what the command wrote. The sandbox has no
// plugins, so no backend can enforce on any machine.

let sandbox: Sandbox;
const tmux = privateTmux('cordon-unguarded');
beforeEach(() => (sandbox = makeSandbox('cordon-control-unguarded-')));
afterEach(() => {
  tmux.kill();
  sandbox.cleanup();
});

const routes = [
  { name: 'fast route', env: {} },
  { name: 'oclif route', env: { CORDON_NO_FAST_ROUTE: '1' } },
];

const NOTICE = '[cordon] unguarded: no enforcement backend can enforce here';

/** Runs `cordon <args>` in a tmux terminal (stdin, stdout and stderr a terminal) and returns the screen once it exited 0. */
async function inTerminal(args: string, env: NodeJS.ProcessEnv): Promise<string> {
  const script = `'${process.execPath}' '${CORDON_BIN}' ${args}; echo EXIT=$?; sleep 600`;
  const started = tmux.run(['new-session', '-d', '-s', 't', '-x', '200', '-y', '20', 'sh', '-c', script], { ...sandbox.env, ...env, TERM: 'xterm' });
  expect(started.status, started.stderr).toBe(0);
  const screen = await waitFor(() => {
    const text = tmux.run(['capture-pane', '-p', '-J', '-t', 't']).stdout;
    return text.includes('EXIT=') ? text : undefined;
  }, { what: 'control run in tmux', timeoutMs: 60_000 });
  expect(screen).toContain('EXIT=0');
  expect(screen).toContain('COMMAND-RAN');
  return screen;
}

describe.each(routes)('control run without an enforcement backend ($name)', ({ env }) => {
  it('says on a terminal that the run was unguarded, after the command and with what would have applied', async () => {
    const screen = await inTerminal("control run --hint memory:low -- sh -c 'echo COMMAND-RAN'", env);
    const lines = screen.split('\n');
    const ran = lines.findIndex((l) => l.includes('COMMAND-RAN'));
    const notice = lines.findIndex((l) => l.includes(NOTICE));
    expect(ran, screen).toBeGreaterThanOrEqual(0);
    expect(notice, screen).toBeGreaterThan(ran);
    expect(lines[notice]).toContain('memory:low');
  });

  it("says nothing on a terminal for an agent's tool call: one naming its session, or control guard's rewrite", async () => {
    // Gemini CLI, Codex and Aider may run a shell call in a pseudo-terminal.
    expect(await inTerminal("control run --session s-1 -- sh -c 'echo COMMAND-RAN'", env)).not.toContain(NOTICE);
    tmux.kill();
    const guard = `control run -- bash -c 'shift; eval "$1"' cordon-guard '${sandbox.root}' 'echo COMMAND-RAN'`;
    expect(await inTerminal(guard, env)).not.toContain(NOTICE);
  });

  it('writes nothing of its own when stderr is not a terminal', async () => {
    const r = await runCordon(['control', 'run', '--hint', 'memory:low', '--', 'sh', '-c', 'echo COMMAND-RAN'], { cwd: sandbox.root, env: { ...sandbox.env, ...env } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('COMMAND-RAN\n');
    expect(r.stderr).toBe('');
  });
});
