import { jsonFlag, PcodxCommand, textFlags } from '../../pcodx/command.js';
import { hostApi } from '../../pcodx/host-api.js';
import { runTurn } from '../../pcodx/read-commands.js';

export default class PcodxTurn extends PcodxCommand {
  static override summary = 'Record a user prompt and print the render the next model call would see';
  static override description = 'On stderr: session_id=, prompt_message_id= and future_context_source=pcodx-render. On stdout: the render.';
  static override examples = ['<%= config.bin %> <%= command.id %> --text "now fix the parser"'];
  static override flags = { ...jsonFlag, ...textFlags };

  async run(): Promise<void> {
    const { flags } = await this.parse(PcodxTurn);
    const sink = await this.sink(flags.json);
    await runTurn(hostApi, flags, sink);
    await this.printJson();
  }
}
