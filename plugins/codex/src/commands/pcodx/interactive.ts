import type { LedgerHandle } from '@cordon/plugin-api';
import { PcodxCommand, textFlags } from '../../pcodx/command.js';
import { interactiveStart } from '../../pcodx/actions.js';
import { InteractiveLoop, runLoop, type LoopEnd } from '../../pcodx/interactive.js';
import { readTextInput } from '../../pcodx/text-input.js';
import { hostClosestName } from '../../pcodx/host-api.js';

export default class PcodxInteractive extends PcodxCommand {
  static override summary = 'Read lines: plain text is a user turn (kept exactly), /commands inspect, record and compact';
  static override description = 'Type /help for the commands. The pcodx> prompt is shown only when stdout is a terminal; --text-file - is refused because the loop reads stdin.';
  static override flags = { ...textFlags };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxInteractive);
    const input = await readTextInput({ text: flags.text, textFile: flags['text-file'] }, { required: false, stdinAllowed: false });
    // On a terminal, what the loop prints is escaped as the other commands' output is.
    const sink = await this.sink(false);
    let end: LoopEnd = 'end';
    // A mistyped /command is refused with the one meant, in the host's words for a typo.
    const closest = await hostClosestName();
    const loop = async (ledger: LedgerHandle) => {
      const target = await interactiveStart(ledger, { ...flags, text: input?.text }, sink);
      end = await runLoop(new InteractiveLoop(ledger, target, sink, closest), { input: process.stdin, output: process.stdout, tty: process.stdout.isTTY === true });
    };
    await this.withLedger(flags.db, loop, true, flags.session);
    await this.endLoop(end);
  }
}
