import type { Command, Config } from '@oclif/core';
import { commands } from '@oclif/plugin-plugins';
import { catchCommandError, logShownJson } from '../../cli/command-error.js';
import { pluginCommandError } from '../../plugins/command-errors.js';
import { packageNameOf, snapshotPluginSet } from '../../plugins/install-guard.js';
import { absoluteFileSpec, fileSpecProblem, installSpecProblem } from '../../plugins/install-spec.js';
import { pluginPackageName, resolvePluginArgv } from '../../plugins/plugin-names.js';
import { terminalText } from '../../output/terminal.js';

// Typed as oclif's base class: the plugin's own class type lives in a path its package does not export.
const OclifInstall = commands['plugins:install'] as unknown as typeof Command & { prototype: { run(): Promise<unknown> } };

/**
 * `cordon plugins install`: oclif's installer (same arguments and flags), except that a failed
 * install leaves the plugin set as it was. oclif's installer, on failure, uninstalls the name it
 * tried, which also drops a linked plugin of that name; this command saves the data dir's
 * `package.json` and the installed package directories of the names given first, and puts them
 * back when the install throws, and reports the failure as cordon's errors read
 * (`CORDON_PLUGIN_INSTALL`; for a first-party plugin the registry lacks, the command that adds it
 * here). A word that names no plugin to install (a local path, which oclif took for GitHub's
 * owner/repo; a name npm refuses, such as `UPPER`) is `CORDON_BAD_INPUT`, exit 2, before anything
 * is saved or fetched (plugins/install-spec.ts). A plugin already linked here (`plugins link`) is not installed over: it is named with its
 * directory, and how to switch to the registry's version (unlink first). The root plugin's command wins over `@oclif/plugin-plugins`' one of the same id (oclif's
 * `determinePriority`).
 */
/** The arguments of `plugins install` that name a plugin linked here, with its package name and directory. */
function alreadyLinked(args: readonly string[], config: Config): Array<{ arg: string; name: string; root: string }> {
  return args.flatMap((arg) => {
    const name = packageNameOf(pluginPackageName(arg, config));
    const plugin = name === undefined ? undefined : config.plugins.get(name);
    return plugin?.type === 'link' && name !== undefined ? [{ arg, name, root: plugin.root }] : [];
  });
}

export default class PluginsInstall extends OclifInstall {
  override async run(): Promise<void | { already_linked: Array<{ name: string; root: string }> }> {
    // A usage mistake is bad input, refused before anything is saved (oclif's run parses again).
    const { argv } = await this.parse(OclifInstall);
    // So is a word that names no package (a path, `UPPER`), before oclif's installer takes a
    // path for GitHub's owner/repo and runs npm on it (plugins/install-spec.ts).
    for (const word of resolvePluginArgv(argv as string[], this.config)) {
      const problem = installSpecProblem(word) ?? fileSpecProblem(word);
      if (problem) throw problem;
    }
    // A plugin linked here (`plugins link`) is installed already: oclif's installer would fetch the
    // registry's package over it (or fail to, sending the user to link what is linked).
    const linked = alreadyLinked(argv as string[], this.config);
    for (const l of linked) {
      this.log(terminalText(`${l.name} is already linked from ${l.root}: nothing to do. To use the registry's version instead, unlink it first: \`cordon plugins unlink ${l.name}\`, then \`cordon plugins install ${l.name}\``));
    }
    if (linked.length) {
      const skip = new Set(linked.map((l) => l.arg));
      this.argv = this.argv.filter((a) => !skip.has(a));
      // Nothing left to install: under --json the document names what is linked, and where.
      if (argv.every((a) => skip.has(a as string))) return { already_linked: linked.map(({ name, root }) => ({ name, root })) };
    }
    // A first-party short name (`codex`) is its package (`@cordon/codex`), as every plugins
    // subcommand reads it (plugins/plugin-names.ts).
    // oclif's installer gets the resolved names too: it looks only a whole word up in the aliases.
    // A relative `file:` path is the user's, not npm's (npm runs in the data directory).
    this.argv = resolvePluginArgv(this.argv, this.config).map((word) => absoluteFileSpec(word));
    const names = this.argv.filter((a) => !a.startsWith('-')).flatMap((a) => packageNameOf(a) ?? []);
    const snapshot = snapshotPluginSet(this.config.dataDir, names);
    try {
      await OclifInstall.prototype.run.call(this);
    } catch (error) {
      snapshot.restore();
      throw pluginCommandError(error, names);
    }
    snapshot.discard();
  }

  /** `--json` as every cordon command prints it (cli/command-error.ts `logShownJson`): what a plugin's package.json says is escaped there too. */
  override logJson(json: unknown): void {
    logShownJson(json);
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    return catchCommandError(this, error, () => super.catch(error));
  }
}
