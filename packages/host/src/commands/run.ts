import { Args } from '@oclif/core';
import { CordonCommand } from '../cli/cordon-command.js';
import { attemptsFlag, policyFlags, repoFlag, settingsFromFlags } from '../cli/envelope-flags.js';
import { attemptReport, loadRunner, runnerFlags, runnerInputFromFlags, type AttemptReport } from '../cli/runner-flags.js';
import { renderAttempt } from '../envelope/attempt/render.js';
import { runEnvelope } from '../envelope/attempt/run.js';
import { enableStatus } from '../output/status.js';
import { PLAIN_STATUS_EVERY_MS } from '../envelope/attempt/attempt.js';

export default class Run extends CordonCommand {
  static override summary = 'Arm an envelope and run one headless agent attempt inside it, then audit';
  static override description = [
    'Takes every `cordon arm` flag. The lock is held from arming through the agent and the audit.',
    'The prompt goes to the agent on stdin; the agent runs in its own process group, which is ended on SIGINT, SIGTERM or SIGHUP before the lock is released.',
    'Exit 0 accepted, 3 rejected by the policy or a verifier, 4 the agent failed (its executable could not run, timed out, overflowed its output, exited non-zero or reported an error), 2 refused (an agent executable that is not there is refused before anything is armed); 4 wins over 3. Interrupted: 128 + the signal number.',
  ].join('\n');
  static override examples = [
    `<%= config.bin %> <%= command.id %> "fix the failing parser test" --allow 'src/**' --allow 'test/**' --verify 'npm test'`,
    `<%= config.bin %> <%= command.id %> "update the changelog" --agent codex --allow CHANGELOG.md --timeout 600 --json`,
  ];
  static override args = { task: Args.string({ required: true, description: 'What the agent should do (the envelope label; at most 16384 characters)' }) };
  static override flags = { ...repoFlag, ...policyFlags(), ...attemptsFlag, ...runnerFlags };

  async run(): Promise<AttemptReport> {
    const { args, flags } = await this.parse(Run);
    enableStatus({ json: this.jsonEnabled(), plainEveryMs: PLAIN_STATUS_EVERY_MS });
    const host = await this.host();
    const runner = await loadRunner(host, flags.agent);
    const result = await runEnvelope(
      { task: args.task, agent: flags.agent, runner, settings: settingsFromFlags(flags), runnerInput: runnerInputFromFlags(flags) },
      { repo: flags.repo, hooks: host.hooks, warn: (line) => process.stderr.write(`${line}\n`) },
    );
    this.log(renderAttempt(result));
    process.exitCode = result.exitCode;
    return attemptReport(result);
  }
}
