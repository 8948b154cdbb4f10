import type { Interfaces } from '@oclif/core';

/**
 * The plugin a `cordon plugins` argument names: a first-party short name (`codex`, `charts`,
 * `claude`) is the package the host's `oclif.aliases` map it to (`@cordon/codex`), as oclif's
 * installer and inspector read it; anything else (a package name, a path, a URL, a name the
 * aliases block with `null`) is returned as given. Every `plugins` subcommand that takes a plugin
 * name (install, inspect, uninstall and its aliases) resolves its arguments through this one
 * function, so a name one of them accepts the others accept too.
 */
export function pluginPackageName(name: string, config: Interfaces.Config): string {
  const aliases = (config.pjson.oclif as { aliases?: Record<string, string | null> }).aliases ?? {};
  return Object.hasOwn(aliases, name) ? (aliases[name] ?? name) : name;
}

/**
 * `argv` of a `plugins` subcommand with each plugin-name argument resolved by
 * {@link pluginPackageName}; flags (every word starting with `-`; these subcommands take only
 * boolean flags besides the names) and what follows `--` stay as given.
 */
export function resolvePluginArgv(argv: readonly string[], config: Interfaces.Config): string[] {
  const dashes = argv.indexOf('--');
  return argv.map((a, i) => ((dashes !== -1 && i >= dashes) || a.startsWith('-') ? a : pluginPackageName(a, config)));
}
