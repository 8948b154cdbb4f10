import { CordonCommand } from '../cli/cordon-command.js';
import { terminalLines, terminalText } from '../output/terminal.js';

/**
 * What `cordon info --json` returns. Keys are snake_case like every cordon JSON output
 * (docs/reference.md "JSON output"); a hook's name under `taps` is the hook's own (`beforeToolCall`).
 */
export interface InfoReport {
  version: string;
  /** The per-user directories (src/util/paths.ts). */
  paths: { data_dir: string; config_dir: string; cache_dir: string };
  plugins: { applied: string[]; failed: Array<{ plugin: string; hook: string; message: string }> };
  registries: Record<'dialects' | 'runners' | 'samplers' | 'probes', Array<{ name: string; plugin: string }>>;
  taps: Record<string, Array<{ name: string; plugin: string; stage: number }>>;
}

export default class Info extends CordonCommand {
  static override summary = 'Show the host version, data directories, applied plugins, registry entries and hook taps';
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];

  async run(): Promise<InfoReport> {
    await this.parse(Info);
    const host = await this.host();
    const list = <T extends { name: string }>(r: { list(): Array<{ entry: T; plugin: string }> }) => r.list().map(({ entry, plugin }) => ({ name: entry.name, plugin }));
    const taps: InfoReport['taps'] = {};
    for (const [hook, h] of Object.entries(host.hooks)) {
      taps[hook] = (h as { taps: Array<{ name: string; plugin?: string; stage?: number }> }).taps.map((t) => ({ name: t.name, plugin: t.plugin ?? '', stage: t.stage ?? 0 }));
    }
    const report: InfoReport = {
      version: host.version,
      paths: { data_dir: host.paths.dataDir, config_dir: host.paths.configDir, cache_dir: host.paths.cacheDir },
      plugins: { applied: [...host.applied], failed: host.failures.map((f) => ({ plugin: f.plugin, hook: f.hook, message: f.message })) },
      registries: { dialects: list(host.dialects), runners: list(host.runners), samplers: list(host.samplers), probes: list(host.probes) },
      taps,
    };
    this.log(`cordon ${report.version}`);
    this.log(`data: ${report.paths.data_dir}`);
    this.log(`config: ${report.paths.config_dir}`);
    this.log(`cache: ${report.paths.cache_dir}`);
    this.log(`plugins: ${report.plugins.applied.join(', ') || 'none'}`);
    // Plugins name their taps and write their error messages: escaped for the terminal.
    for (const f of report.plugins.failed) this.log(terminalLines(`failed: ${f.message}`));
    for (const [kind, entries] of Object.entries(report.registries)) this.log(terminalText(`${kind}: ${entries.map((e) => `${e.name} (${e.plugin})`).join(', ') || 'none'}`));
    for (const [hook, list] of Object.entries(taps)) this.log(terminalText(`taps on ${hook}: ${list.map((t) => `${t.name} (${t.plugin}, stage ${t.stage})`).join(', ') || 'none'}`));
    return report;
  }
}
