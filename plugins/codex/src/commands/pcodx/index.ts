import { Command, loadHelpClass } from '@oclif/core';
import { isReportable } from '../../pcodx/errors.js';

/** The global flags the reference pcodx takes before its command (the Rust pcodx, SichangHe/partial_compact_codex), each with a value. */
const GLOBAL_FLAGS = new Set(['--db', '--session', '--cwd']);

/**
 * What `cordon pcodx ARGS` (and the `pcodx` bin) means when ARGS does not start with a command:
 * the reference's spelling, global flags first (`pcodx --db D --session S init`), runs the command
 * with those flags moved after it; nothing at all, or only `--help`, prints the topic help.
 * Anything else (no command after the flags, an unknown command or flag) is a usage error, exit 2.
 */
export function splitLeadingFlags(argv: readonly string[]): { kind: 'help' } | { kind: 'run'; command: string; argv: string[] } | { kind: 'error'; message: string } {
  const globals: string[] = [];
  let i = 0;
  while (i < argv.length && argv[i]!.startsWith('-')) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (!GLOBAL_FLAGS.has(name)) return { kind: 'error', message: `${JSON.stringify(arg)} is not a global flag of pcodx (those are --db, --session and --cwd); put the command first: pcodx <command> [flags]` };
    if (eq >= 0) {
      globals.push(arg);
      i += 1;
      continue;
    }
    if (i + 1 >= argv.length) return { kind: 'error', message: `${name} needs a value` };
    globals.push(arg, argv[i + 1]!);
    i += 2;
  }
  if (i >= argv.length) return globals.length === 0 ? { kind: 'help' } : { kind: 'error', message: `name a command after the global flags, e.g. pcodx ${globals.join(' ')} init` };
  return { kind: 'run', command: argv[i]!, argv: [...argv.slice(i + 1), ...globals] };
}

export default class Pcodx extends Command {
  static override summary = 'Partial compaction for Codex: a ledger of the conversation in which chosen ranges are replaced by summaries';
  static override description = 'Global flags may come before the command, as the reference pcodx writes them: `pcodx --db D --session S init` is `pcodx init --db D --session S`.';
  static override strict = false;
  static override usage = '<%= command.id %> [--db PATH] [--session NAME] [--cwd DIR] COMMAND [FLAGS]';
  static override examples = ['<%= config.bin %> pcodx --db ./pcodx.sqlite3 --session demo init', '<%= config.bin %> pcodx show --session demo'];

  async run(): Promise<void> {
    const split = splitLeadingFlags(this.argv);
    if (split.kind === 'help') {
      const Help = await loadHelpClass(this.config);
      await new Help(this.config).showHelp(['pcodx']);
      return;
    }
    if (split.kind === 'error') {
      process.stderr.write(`error: ${split.message}\n`);
      process.exitCode = 2;
      return;
    }
    const id = `pcodx:${split.command}`;
    if (!this.config.findCommand(id)) {
      process.stderr.write(`error: ${JSON.stringify(split.command)} is not a pcodx command; run \`${this.config.bin} pcodx --help\` for the list\n`);
      process.exitCode = 2;
      return;
    }
    await this.config.runCommand(id, split.argv);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (!isReportable(error)) return super.catch(error);
    process.stderr.write(`error: ${error.message}\n`);
    process.exitCode = 1;
    return undefined;
  }
}
