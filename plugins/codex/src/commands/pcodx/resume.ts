import type { LedgerHandle } from '@cordon/plugin-api';
import { Flags } from '@oclif/core';
import { PcodxCommand, textFlags } from '../../pcodx/command.js';
import { checkResumeSelector, resume } from '../../pcodx/actions.js';
import { InteractiveLoop, runLoop, type LoopEnd } from '../../pcodx/interactive.js';
import { readTextInput } from '../../pcodx/text-input.js';
import { hostClosestName } from '../../pcodx/host-api.js';

export default class PcodxResume extends PcodxCommand {
  static override summary = 'Reopen an existing session (--session NAME or --last), print its render, then run the interactive loop';
  static override description = 'Never creates a session. An optional --text / --text-file prompt is recorded first; --text-file - is refused because the loop reads stdin.';
  static override examples = ['<%= config.bin %> <%= command.id %> --last', '<%= config.bin %> <%= command.id %> --session demo --text "where were we?"'];
  static override flags = { last: Flags.boolean({ summary: 'The most recently written session.' }), ...textFlags };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxResume);
    // Before the ledger is opened: a refusal writes nothing.
    checkResumeSelector(flags);
    const input = await readTextInput({ text: flags.text, textFile: flags['text-file'] }, { required: false, stdinAllowed: false });
    // On a terminal, what the loop prints is escaped as the other commands' output is.
    const sink = await this.sink(false);
    let end: LoopEnd = 'end';
    // A mistyped /command is refused with the one meant, in the host's words for a typo.
    const closest = await hostClosestName();
    const loop = async (ledger: LedgerHandle) => {
      const target = await resume(ledger, { ...flags, text: input?.text }, sink);
      end = await runLoop(new InteractiveLoop(ledger, target, sink, closest), { input: process.stdin, output: process.stdout, tty: process.stdout.isTTY === true });
    };
    await this.withExistingLedger(flags.db, loop, flags.session);
    await this.endLoop(end);
  }
}
