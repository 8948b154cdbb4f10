import { CordonCommand } from '../../cli/cordon-command.js';
import { formatProbeReport, runProbes, type ProbeReport } from '../../control/probe.js';

export default class ControlProbe extends CordonCommand {
  static override summary = 'Say whether `cordon control run` can enforce resource limits on this machine, and why not';
  static override description = [
    'Runs every probe plugins registered (cgroup v2 mount kind, controllers available to cordon, whether it can create and remove',
    "a child cgroup, PSI, memory.peak, sched_ext, memcg_bpf_ops, swap, this machine's tier table). Exit 0 when enforcement is",
    'available, 1 when guarded commands would run unguarded (the reason is printed), 2 on bad input.',
  ].join(' ');

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];

  async run(): Promise<ProbeReport> {
    await this.parse(ControlProbe);
    const host = await this.host();
    const report = await runProbes(host.probes.list());
    if (!this.jsonEnabled()) for (const line of formatProbeReport(report)) this.log(line);
    // Not this.exit(1): under --json oclif would print an error object instead of the report.
    process.exitCode = report.available ? 0 : 1;
    return report;
  }
}
