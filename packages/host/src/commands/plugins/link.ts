import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from '@oclif/core';
import { commands } from '@oclif/plugin-plugins';
import { catchCommandError } from '../../cli/command-error.js';
import { linkPathProblem, pluginCommandError } from '../../plugins/command-errors.js';
import { missingEntryFiles, unbuiltFix, unbuiltMessage } from '../../plugins/unbuilt.js';
import { terminalLines } from '../../output/terminal.js';

/** The `name` of the package.json at `root`, if it has one. */
function packageName(root: string): string | undefined {
  try {
    const name = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: unknown }).name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

// Typed as oclif's base class: the plugin's own class type lives in a path its package does not export.
const OclifLink = commands['plugins:link'] as unknown as typeof Command & { prototype: { run(): Promise<unknown> } };

/**
 * `cordon plugins link PATH`: oclif's linker (same argument and flags), except that a path that
 * is not a plugin package's directory is refused first, naming it (exit 2, `CORDON_BAD_INPUT`;
 * oclif said "does not appear to be a valid CLI plugin" or printed its lookup object), and that a
 * failure reads as cordon's errors do (`CORDON_PLUGIN_INSTALL`), and that a checkout whose entry
 * files do not exist (never built) is linked with a `warning:` line saying to build it or unlink
 * it (plugins/unbuilt.ts). The root plugin's command wins
 * over `@oclif/plugin-plugins`' one of the same id.
 */
export default class PluginsLink extends OclifLink {
  override async run(): Promise<void> {
    // oclif spreads the class it is given: the statics are the parent's own properties.
    const { args } = await this.parse(OclifLink);
    const problem = linkPathProblem(resolve(String(args.path ?? '.')));
    if (problem) throw problem;
    try {
      await OclifLink.prototype.run.call(this);
    } catch (error) {
      throw pluginCommandError(error, []);
    }
    // Linked, but a checkout never built: every command would warn that it failed to load. Said now.
    const root = resolve(String(args.path ?? '.'));
    const missing = missingEntryFiles(root);
    if (missing.length) {
      const name = packageName(root) ?? root;
      process.stderr.write(`warning: ${terminalLines(`${name}: ${unbuiltMessage(root, missing)}, so every command will warn that it failed to load; ${unbuiltFix(name, root)}`)}\n`);
    }
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    return catchCommandError(this, error, () => super.catch(error));
  }
}
