import type { Command } from '@oclif/core';
import { commands } from '@oclif/plugin-plugins';
import { catchCommandError } from '../../cli/command-error.js';
import { CordonError, ERROR_CODES } from '../../errors/index.js';

// Typed as oclif's base class: the plugin's own class type lives in a path its package does not export.
const OclifInspect = commands['plugins:inspect'] as unknown as typeof Command & { prototype: { run(): Promise<unknown> } };

/**
 * `cordon plugins inspect PLUGIN…`: oclif's command (same arguments and flags), except that its
 * errors read as cordon's do, under `--json` too (cli/command-error.ts; oclif's own printed a
 * parse error's whole command configuration there): a plugin that is not installed is
 * `CORDON_BAD_INPUT`, exit 2. The root plugin's command wins over `@oclif/plugin-plugins`' one of
 * the same id.
 */
export default class PluginsInspect extends OclifInspect {
  override async run(): Promise<unknown> {
    try {
      return await OclifInspect.prototype.run.call(this);
    } catch (error) {
      // oclif's words for a name no installed plugin has (a plain Error).
      const missing = error instanceof Error && !(error as { oclif?: unknown }).oclif ? /^(\S+) not installed$/.exec(error.message) : null;
      if (missing) throw new CordonError(ERROR_CODES.BAD_INPUT, `no installed plugin is called ${missing[1]}; \`${this.config.bin} plugins\` lists them`, { details: { plugin: missing[1] } });
      throw error;
    }
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    return catchCommandError(this, error, () => super.catch(error));
  }
}
