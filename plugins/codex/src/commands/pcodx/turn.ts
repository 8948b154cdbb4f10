import { jsonFlag, PcodxCommand, textFlags } from '../../pcodx/command.js';
import { turn } from '../../pcodx/actions.js';
import { readTextInput } from '../../pcodx/text-input.js';

export default class PcodxTurn extends PcodxCommand {
  static override summary = 'Record a user prompt and print the render the next model call would see';
  static override description = 'On stderr: session_id=, prompt_message_id= and future_context_source=pcodx-render. On stdout: the render.';
  static override examples = ['<%= config.bin %> <%= command.id %> --text "now fix the parser"'];
  static override flags = { ...jsonFlag, ...textFlags };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxTurn);
    const sink = this.sink(flags.json);
    const input = await readTextInput({ text: flags.text, textFile: flags['text-file'] }, { required: true, stdinAllowed: true });
    await this.withLedger(flags.db, (ledger) => turn(ledger, { ...flags, text: input!.text }, sink), true, flags.session);
    this.printJson();
  }
}
