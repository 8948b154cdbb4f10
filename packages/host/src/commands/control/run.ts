import { Flags } from '@oclif/core';
import { CordonCommand } from '../../cli/cordon-command.js';
import { commandUsageProblem, controlRun, printRecord, workingDirectory } from '../../control/run.js';
import { endLike } from '../../process/end-like.js';
import { parseHint } from '../../control/tiers.js';
import { CordonError, ERROR_CODES } from '../../errors/index.js';
import { cutText } from '@cordon/plugin-api';
import { redactText } from '../../output/redact.js';
import { recordedCommand } from '../../output/recorded-command.js';

export default class ControlRun extends CordonCommand {
  static override summary = 'Run one command in its own short-lived cgroup with the memory and CPU of a tier';
  static override description = [
    'Runs the command after -- in its own cgroup v2 (memory.high and cpu.weight of the tier; never memory.max), created before the',
    "command's first instruction and removed after its whole group exited. The tier comes from --hint, else AGENT_RESOURCE_HINT, else",
    'memory:medium. stdin, stdout and stderr pass through untouched, signals are forwarded, and the exit status is the command\'s (128 +',
    'signal). When the call stalled on memory, was frozen or lost a process to the OOM killer, one note follows its stderr. Where no',
    'backend can enforce (see `cordon control probe`) the command runs unguarded the same way, except that cordon returns when the',
    'command exits and processes it left in the background keep running. With --json the command\'s stdout passes through cordon first',
    'and the run record follows on stdout as one JSON line of its own; a reader that closes it early (| head) closes the command\'s',
    'stdout too (its next write fails), and output a background job writes after the command exited is cut off after 0.2 s.',
  ].join(' ');

  static override examples = [
    '<%= config.bin %> <%= command.id %> -- npm test',
    '<%= config.bin %> <%= command.id %> --hint memory:low -- pytest -x tests/unit',
    "<%= config.bin %> <%= command.id %> --hint memory:high --verbose -- sh -c 'make -j8'",
  ];

  static override usage = '<%= command.id %> [--hint memory:TIER] [--session ID] [--json] [--verbose] -- <command> [<argument>...]';

  static override strict = false;

  /** The command to run comes after `--`: given without it, the line is refused with the corrected one (cli/command-after-dashes.ts). */
  static commandAfterDashes = true;

  static override flags = {
    hint: Flags.string({ description: 'Resource hint, e.g. memory:low, memory:high,cpu:low (tiers low, medium, high, max); default AGENT_RESOURCE_HINT, else memory:medium' }),
    verbose: Flags.boolean({ description: 'Print one stderr line saying what was applied (or would have been)' }),
    session: Flags.string({ description: "The agent session whose tool call this is (written by `cordon control guard`'s rewrite), so `cordon reduce` joins the run to the call" }),
  };

  async run(): Promise<void> {
    // The first `--` ends cordon's options and everything after it is the command, word for word
    // (POSIX utility syntax guideline 10), as on the fast route: `-- -- echo hi` runs `--`.
    const given = this.argv;
    const dashes = given.indexOf('--');
    // oclif parses cordon's own options only (and keeps what it parsed as this.argv): its parser
    // reads every token again per token (20,000 arguments took 10 s), and the command's words
    // are not its to read.
    const { flags, argv } = await this.parse(ControlRun, dashes >= 0 ? given.slice(0, dashes) : given);
    const words = argv as string[];
    const command = dashes >= 0 ? given.slice(dashes + 1) : words;
    const problem = commandUsageProblem(command);
    if (problem !== undefined) throw new CordonError(ERROR_CODES.BAD_INPUT, problem, { details: { argv: command } });
    if (flags.session !== undefined && flags.session === '') throw new CordonError(ERROR_CODES.BAD_INPUT, '--session needs a session id');
    if (flags.hint !== undefined) {
      const { unknown } = parseHint(flags.hint);
      if (unknown.length || flags.hint.trim() === '') {
        // Named, not echoed whole: a hint is an agent's text, of any length, and may hold a secret.
        const hint = redactText(flags.hint);
        const shown = unknown.slice(0, 5).map((token) => cutText(redactText(token), 40));
        const more = unknown.length > shown.length ? ` and ${unknown.length - shown.length} more` : '';
        const long = hint.length > 80 ? ` (${hint.length} characters)` : '';
        throw new CordonError(ERROR_CODES.BAD_INPUT, `--hint ${JSON.stringify(cutText(hint, 80))}${long}: not understood: ${shown.join(' ') || '(empty)'}${more}; use memory:low|medium|high|max and cpu:low|medium|high|max`, {
          details: { hint: recordedCommand(hint), unknown: shown, unknown_count: unknown.length },
        });
      }
    }
    const host = await this.host();
    const outcome = await controlRun({
      argv: command,
      ...(flags.hint !== undefined ? { hint: flags.hint } : {}),
      ...(flags.session !== undefined ? { session: flags.session } : {}),
      cwd: workingDirectory(),
      env: process.env,
      json: this.jsonEnabled(),
      hooks: host.hooks,
      dataDir: host.paths.dataDir,
      log: host.log,
      verbose: flags.verbose,
    });
    // After the command's own output: the run record as one JSON line.
    if (this.jsonEnabled()) printRecord(outcome);
    endLike({ code: outcome.record.signal ? null : outcome.exitCode, signal: outcome.record.signal });
  }
}
