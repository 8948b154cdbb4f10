import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORDON_BIN } from '../../support/cli.js';
import { FakeAnthropic, holdPerTest, step } from '../../support/fake-models/index.js';
import { privateTmux } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';
import { killSpawned, makeRepoSandbox, makeScene } from './support.js';

// `cordon run` on a terminal: the status line names the tool call the agent runs now and how long
// it has run, read from the markers its installed hooks write (real Claude Code, fake model).

const held = holdPerTest(killSpawned);
const tmux = privateTmux('cordon-run-progress');

describe('cordon run on a terminal', () => {
  it("shows the attempt's current tool call and its time, then only the verdict", async () => {
    const made = makeRepoSandbox('cordon-run-progress-');
    held.sandbox(made.sandbox);
    const release = join(made.sandbox.root, 'release');
    const command = `while [ ! -e ${release} ]; do sleep 0.1; done`;
    const server = held.server(await FakeAnthropic.start({ workdir: made.repo, steps: [step.shell(command), step.text('Done.')] }));
    const s = makeScene('claude-code', made.sandbox, made.repo, server);
    expect((await s.cordon(['install-hooks', '--agent', 'claude-code', '--write'])).exitCode).toBe(0);
    try {
      const env = { ...s.session.env, TERM: 'xterm' };
      const line = `'${process.execPath}' '${CORDON_BIN}' run 'wait for the release' --agent claude-code --allow 'src/**'; echo EXIT=$?; sleep 600`;
      expect(tmux.run(['new-session', '-d', '-s', 'r', '-x', '220', '-y', '20', '-c', made.repo, 'sh', '-c', line], env).status).toBe(0);
      const screen = () => tmux.screen('r');
      await waitFor(() => /cordon run: Claude Code attempt 1\/\d+ running in .* · \d+ s · Bash: while \[ ! -e .*, \d+ s/.test(screen()), { what: 'the current call in the status line', timeoutMs: 120_000 });
      writeFileSync(release, '');
      const done = await waitFor(() => (/EXIT=\d+/.test(screen()) ? screen() : undefined), { what: 'the verdict', timeoutMs: 120_000 });
      expect(done).toMatch(/EXIT=0/);
      expect(done).not.toMatch(/attempt 1\/\d+ running/);
    } finally {
      tmux.kill();
    }
  }, 300_000);
});
