import { Help } from '@oclif/core';
import { reportUnknownCommand } from './unknown-command.js';

/**
 * cordon's oclif help class (`oclif.helpClass`): oclif's help, except that help for a command
 * nobody provides (`cordon chek -h`, `cordon help chek`) is refused the way running it is, with
 * the closest command and exit 2, instead of oclif's bare "Command chek not found.".
 */
export default class CordonHelp extends Help {
  override async showHelp(argv: string[]): Promise<void> {
    try {
      await super.showHelp(argv);
    } catch (error) {
      const missing = /^Command (\S+) not found\.$/.exec((error as Error).message ?? '');
      if (!missing) throw error;
      throw reportUnknownCommand(missing[1]!, this.config, argv);
    }
  }
}
