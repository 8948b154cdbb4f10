import { CordonCommand } from '../cli/cordon-command.js';
import { directoryFlag } from '../cli/directory-flag.js';
import { formatDoctorReport, runDoctor, type DoctorReport } from '../doctor/index.js';

export default class Doctor extends CordonCommand {
  static override summary = 'Check that cordon sees your agents: hooks, plugins, SQLite, samplers, the log, enforcement';
  static override description = [
    'Looks at everything between an agent and cordon and says what is wrong and how to fix it: the Node version and the SQLite driver; the installed plugins; per agent and scope, whether cordon\'s hooks are in its config, current, able to start (node and cordon paths) and accepted by the agent (Codex skips untrusted hooks; Hermes asks for consent); the last hook event seen from each agent; the newest error in the log and where the log is; running samplers; and whether `cordon control run` can enforce here.',
    'Writes nothing. Exit 0 when all is well, 1 when it found a problem (each printed with its fix).',
  ].join('\n');
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json', '<%= config.bin %> <%= command.id %> --project-dir ~/src/app'];
  static override flags = {
    'project-dir': directoryFlag({ description: 'Project whose agent configs (project scope) are checked too (default: current directory; it must exist)' }),
  };

  async run(): Promise<DoctorReport> {
    const { flags } = await this.parse(Doctor);
    const host = await this.host();
    // The plugins the user installed or linked: not cordon itself, which oclif lists as its root plugin.
    const packages = [...this.config.plugins.values()].filter((p) => p.name !== this.config.name).map((p) => ({ name: p.name, version: p.version }));
    const report = await runDoctor(host, { projectDir: flags['project-dir'], packages });
    if (!this.jsonEnabled()) for (const line of formatDoctorReport(report)) this.log(line);
    if (!report.ok) process.exitCode = 1;
    return report;
  }
}
