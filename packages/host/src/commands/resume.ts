import { CordonCommand } from '../cli/cordon-command.js';
import { repoFlag } from '../cli/envelope-flags.js';
import { attemptReport, loadRunner, type AttemptReport } from '../cli/runner-flags.js';
import { renderAttempt } from '../envelope/attempt/render.js';
import { resumeEnvelope } from '../envelope/attempt/resume.js';
import { enableStatus } from '../output/status.js';
import { PLAIN_STATUS_EVERY_MS } from '../envelope/attempt/attempt.js';

export default class Resume extends CordonCommand {
  static override summary = 'Run a fresh agent attempt in the envelope armed by `cordon run`, with recovery context';
  static override description = [
    'The prompt adds how the previous attempt ended, the paths changed so far and the output of failed verifiers.',
    'Refused (exit 2) for a manual or accepted envelope, at the attempt ceiling (--max-attempts of run), or when the current changes already break the policy (then the phase becomes rejected).',
    'Exit codes as for `cordon run`.',
  ].join('\n');
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];
  static override flags = { ...repoFlag };

  async run(): Promise<AttemptReport> {
    const { flags } = await this.parse(Resume);
    enableStatus({ json: this.jsonEnabled(), plainEveryMs: PLAIN_STATUS_EVERY_MS });
    const host = await this.host();
    const result = await resumeEnvelope({ repo: flags.repo, hooks: host.hooks, loadRunner: (name) => loadRunner(host, name) });
    this.log(renderAttempt(result));
    process.exitCode = result.exitCode;
    return attemptReport(result);
  }
}
