import { CordonCommand } from '../cli/cordon-command.js';
import { repoFlag } from '../cli/envelope-flags.js';
import { reset, type ResetResult } from '../envelope/reset.js';
import { CORDON_DIR, strayMoveCommand } from '../envelope/state/store.js';

export default class Reset extends CordonCommand {
  static override summary = 'Discard the armed envelope (.cordon/); source files are not touched';
  static override description = "Works on a corrupt envelope too, and finishes a reset or arm that was killed. Removes .cordon/ only when it is cordon's own (nothing tracked, only names cordon writes; when git cannot say, e.g. a damaged index, the names alone decide); files cordon did not write beside an envelope (none tracked) stay in .cordon/ and are named. Exit 0 (also when nothing was armed), 2 when another cordon process holds the lock or .cordon/ is not cordon's.";
  static override examples = ['<%= config.bin %> <%= command.id %>'];
  static override flags = { ...repoFlag };

  async run(): Promise<ResetResult> {
    const { flags } = await this.parse(Reset);
    const result = await reset(flags.repo);
    this.log(result.removed ? `reset: removed the envelope in ${result.root}` : `reset: nothing armed in ${result.root}`);
    if (result.kept?.length) {
      const kept = result.kept;
      const names = kept.slice(0, 5).map((name) => JSON.stringify(name)).join(', ') + (kept.length > 5 ? ` and ${kept.length - 5} more` : '');
      const move = strayMoveCommand(kept);
      this.log(`reset: left ${names} in ${CORDON_DIR}/: cordon did not write ${kept.length === 1 ? 'it' : 'them'}; move ${kept.length === 1 ? 'it' : 'them'} out before \`cordon arm\`${move ? ` (e.g. \`${move} && rmdir ${CORDON_DIR}\`)` : ''}`);
    }
    return result;
  }
}
