import { CordonCommand } from '../cli/cordon-command.js';
import { hooksWarnings, printHooksReport } from '../install-hooks/print.js';
import { runInstallHooks, type InstallHooksReport } from '../install-hooks/run.js';
import { hookConfigFlags } from './install-hooks.js';

export default class UninstallHooks extends CordonCommand {
  static override summary = 'Remove exactly what `cordon install-hooks` wrote from the agents\' hook configs';
  static override description = [
    'Dry run by default (prints a diff of every file); --write applies. A file install-hooks created is deleted, and a file that existed gets back its exact earlier bytes,',
    'as long as nothing else has written to it since (install keeps a record in the data dir); otherwise only the entries whose command is a cordon hook command for',
    'that agent (and Codex trust entries holding their hashes) are removed, with the containers they leave empty. A symbolic link is never deleted.',
    'At user scope --write also records that the agent\'s hooks were removed on purpose (<config>/hooks-removed.json): `cordon doctor` then reports it as such instead of a problem, and `install-hooks --all` leaves it out; `install-hooks --agent NAME --write` takes the choice back.',
  ].join('\n');
  static override examples = ['<%= config.bin %> <%= command.id %> --agent codex', '<%= config.bin %> <%= command.id %> --all --write'];
  static override flags = hookConfigFlags;

  async run(): Promise<InstallHooksReport> {
    const { flags } = await this.parse(UninstallHooks);
    const host = await this.host();
    const result = await runInstallHooks(host, {
      mode: 'uninstall',
      agents: flags.all ? 'all' : (flags.agent ?? []),
      scope: flags.scope as 'user' | 'project',
      projectDir: flags['project-dir'],
      write: flags.write,
      executable: flags.command,
    });
    if (!this.jsonEnabled()) printHooksReport(result, (line) => this.log(line));
    // --json keeps stdout for the document; the warnings still reach a person on stderr.
    else for (const warning of hooksWarnings(result)) process.stderr.write(`${warning}\n`);
    return result;
  }
}
