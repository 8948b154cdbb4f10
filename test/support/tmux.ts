import { spawnSync } from 'node:child_process';

/**
 * tmux on a private server socket (`-L`), so tests never touch a user's tmux: `run` sends a tmux
 * command, `screen` is the visible text of a window (`capture-pane -p -J`), `kill` ends the server.
 * scripts/test-prepare.sh installs tmux; without it the commands fail (tests fail, not skip).
 */
export interface Tmux {
  run(args: readonly string[], env?: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string };
  screen(target: string): string;
  kill(): void;
}

/**
 * A tmux handle on a socket named after `name` and this process. Each `kill` moves the handle to
 * a socket of its own: `kill-server` returns before the server has gone, and the next test's
 * `new-session` on the same socket could meet the old server still ending (a failed start,
 * seen once in CI under Node 24).
 */
export function privateTmux(name: string): Tmux {
  let generation = 0;
  const socket = () => `${name}-${process.pid}-${generation}`;
  const run = (args: readonly string[], env?: NodeJS.ProcessEnv) => spawnSync('tmux', ['-L', socket(), ...args], { encoding: 'utf8', env: env ?? process.env, timeout: 10_000 });
  return {
    run,
    screen: (target) => run(['capture-pane', '-p', '-J', '-t', target]).stdout,
    kill: () => {
      run(['kill-server']);
      generation += 1;
    },
  };
}
