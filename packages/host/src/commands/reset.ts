import { CordonCommand } from '../cli/cordon-command.js';
import { repoFlag } from '../cli/envelope-flags.js';
import { reset } from '../envelope/reset.js';

export default class Reset extends CordonCommand {
  static override summary = 'Discard the armed envelope (.cordon/); source files are not touched';
  static override description = "Works on a corrupt envelope too, and finishes a reset or arm that was killed. Removes .cordon/ only when it is cordon's own (nothing tracked, only names cordon writes; when git cannot say, e.g. a damaged index, the names alone decide). Exit 0 (also when nothing was armed), 2 when another cordon process holds the lock or .cordon/ is not cordon's.";
  static override examples = ['<%= config.bin %> <%= command.id %>'];
  static override flags = { ...repoFlag };

  async run(): Promise<{ removed: boolean; root: string }> {
    const { flags } = await this.parse(Reset);
    const result = await reset(flags.repo);
    this.log(result.removed ? `reset: removed the envelope in ${result.root}` : `reset: nothing armed in ${result.root}`);
    return result;
  }
}
