import { CordonCommand } from '../cli/cordon-command.js';
import { repoFlag } from '../cli/envelope-flags.js';
import { renderStatus } from '../envelope/render.js';
import { status, type StatusReport } from '../envelope/status.js';

export default class Status extends CordonCommand {
  static override summary = 'Show the armed envelope: phase, attempts, policy and the last audit';
  static override description = 'Validates the whole envelope first; exit 2 when nothing is armed or the state is corrupt. Takes no lock.';
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];
  static override flags = { ...repoFlag };

  async run(): Promise<StatusReport> {
    const { flags } = await this.parse(Status);
    const report = await status(flags.repo);
    this.log(renderStatus(report));
    return report;
  }
}
