import { Flags } from '@oclif/core';
import { CordonCommand } from '../cli/cordon-command.js';
import { directoryFlag } from '../cli/directory-flag.js';
import { directoryVariablesNote } from '../install-hooks/directory-note.js';
import { hooksWarnings, printHooksReport } from '../install-hooks/print.js';
import { runInstallHooks, type InstallHooksReport } from '../install-hooks/run.js';

/** Flags shared by install-hooks and uninstall-hooks. */
export const hookConfigFlags = {
  agent: Flags.string({ char: 'a', multiple: true, description: 'Agent to configure (repeatable): claude-code, codex, gemini, cursor, hermes', exclusive: ['all'] }),
  all: Flags.boolean({ description: 'Every agent found installed here (its binary on PATH or its user config home present; with --scope project also its config dir in the project); each agent left out is named with why', exclusive: ['agent'] }),
  scope: Flags.string({ options: ['user', 'project'], default: 'user', description: "Write the agent's per-user config, or the project's" }),
  'project-dir': directoryFlag({ description: 'Project root for --scope project (default: current directory; it must exist)' }),
  write: Flags.boolean({ description: 'Apply the changes (default: dry run printing a diff of each file)' }),
  command: Flags.string({ description: 'The cordon executable to write into the configs, made absolute (a bare name is looked up on PATH; default: this node binary and this installation of cordon); install refuses one that could not start here' }),
};

export default class InstallHooks extends CordonCommand {
  static override summary = 'Make agents run `cordon hook` on every tool call and session boundary';
  static override description = [
    'Merges cordon into each agent\'s own hook config, keeping everything else (comments in YAML and TOML too): Claude Code settings.json (PreToolUse, PostToolUse, PostToolUseFailure, SessionStart, SessionEnd), Codex hooks.json plus the trust entries in the user config.toml, Gemini CLI settings.json, Cursor hooks.json, Hermes config.yaml.',
    'A dry run by default: prints a diff of every file it would change; --write applies. Running it twice changes nothing.',
    'A config file that does not parse is refused and left untouched. A config that is a symbolic link stays one (its target is edited).',
    'Every file of every agent is written, or none: a failed write puts back what this run wrote (exit 2, CORDON_HOOKS_WRITE_FAILED).',
    'Codex trust that no codex binary could confirm ends the output with a warning.',
  ].join('\n');
  static override examples = [
    '<%= config.bin %> <%= command.id %> --agent claude-code',
    '<%= config.bin %> <%= command.id %> --agent codex --agent gemini --write',
    '<%= config.bin %> <%= command.id %> --all --scope project --write',
    '<%= config.bin %> <%= command.id %> --agent hermes --write --accept',
    '<%= config.bin %> <%= command.id %> --all --check',
  ];
  static override flags = {
    ...hookConfigFlags,
    accept: Flags.boolean({ description: "Hermes: also record your consent in Hermes' shell-hooks allowlist (otherwise Hermes asks on first use)" }),
    check: Flags.boolean({ description: 'Write nothing; exit 1 when an install would change something (the diffs are printed), 0 when every config is current', exclusive: ['write'] }),
  };

  async run(): Promise<InstallHooksReport> {
    const { flags } = await this.parse(InstallHooks);
    const host = await this.host();
    const result = await runInstallHooks(host, {
      mode: 'install',
      agents: flags.all ? 'all' : (flags.agent ?? []),
      scope: flags.scope as 'user' | 'project',
      projectDir: flags['project-dir'],
      write: flags.write,
      accept: flags.accept,
      executable: flags.command,
    });
    // The hook command carries no environment: a CORDON_*_DIR set only here would not reach it.
    const directories = directoryVariablesNote();
    if (!this.jsonEnabled()) {
      printHooksReport(result, (line) => this.log(line), directories ? [directories] : []);
    } else {
      // --json keeps stdout for the document; the warnings still reach a person on stderr.
      for (const warning of hooksWarnings(result)) process.stderr.write(`${warning}\n`);
      if (directories) process.stderr.write(`note: ${directories}\n`);
    }
    // --check: a CI or a setup script asks "is everything installed and current?"
    if (flags.check && result.agents.some((a) => a.changes.length > 0)) process.exitCode = 1;
    return result;
  }
}
