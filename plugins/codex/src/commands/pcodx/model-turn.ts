import { Flags } from '@oclif/core';
import { PcodxCommand, textFlags } from '../../pcodx/command.js';
import { modelTurnCommand } from '../../pcodx/model-turn/command.js';
import { readTextInput } from '../../pcodx/text-input.js';

export default class PcodxModelTurn extends PcodxCommand {
  static override summary = 'Run one answering-model turn on a fresh Codex thread seeded with the session render, record it, and log its token usage';
  static override description = [
    'Starts `codex app-server --listen stdio://`, opens a fresh ephemeral read-only thread, injects the visible entries of --session as role items (thread/inject_items), sends the text as the turn, and records the prompt and the answer in one transaction.',
    'Approvals are declined and permission requests get an empty grant: the turn runs unattended.',
    'One JSON line per turn goes to the usage log (--usage-log, else $PCODX_USAGE_LOG, else the database path with .usage.jsonl): token counts, the compaction and context counts, versions and the session correlation id; never text, ids or paths. The log is created 0600; a log open to group or others is refused before the turn runs.',
    'Prints the answer on stdout and session_id=, prompt_message_id=, answer_message_id=, usage_log= on stderr; --json prints one JSON object instead.',
  ].join('\n\n');
  static override examples = ['<%= config.bin %> <%= command.id %> --session demo --text "what is left to do?"'];
  static override flags = {
    ...textFlags,
    'codex-bin': Flags.string({ summary: 'The codex executable that runs `app-server`.', default: 'codex' }),
    // At most what a Node timer holds (2^31 - 1 ms): a longer one fires after 1 ms, with a TimeoutOverflowWarning.
    'timeout-seconds': Flags.integer({ summary: 'Give up on the turn after this many seconds (at most 2147483, about 24.8 days).', default: 180, min: 1, max: 2_147_483 }),
    json: Flags.boolean({ summary: 'Print one JSON object (ids, answer, usage line, log path).' }),
    'context-out': Flags.string({ summary: 'Write the exact injected items to this new file (it must not exist; created 0600).' }),
    'usage-log': Flags.string({ summary: 'Usage JSONL file (default: $PCODX_USAGE_LOG, else <db>.usage.jsonl).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxModelTurn);
    if (!flags.session) this.error('pass --session NAME: model-turn answers within one existing session', { exit: 2 });
    const input = await readTextInput({ text: flags.text, textFile: flags['text-file'] }, { required: true, stdinAllowed: true });
    // Under --json the command prints its own object; the sink is for the plain lines.
    const sink = await this.sink(false);
    await this.withExistingLedger(flags.db, (ledger) =>
      modelTurnCommand(ledger, {
        session: flags.session!,
        cwd: flags.cwd,
        text: input!.text,
        codexBin: flags['codex-bin'],
        timeoutMs: flags['timeout-seconds'] * 1000,
        json: flags.json,
        contextOut: flags['context-out'],
        usageLog: flags['usage-log'],
      }, sink),
      flags.session,
    );
  }
}
