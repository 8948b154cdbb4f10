import type { Interfaces } from '@oclif/core';

/**
 * A plugin argument split into its package part and the version or tag after its last `@` that
 * is not the first character (npm's `name@version` spec: `codex@0.1.0`, `@cordon/codex@latest`);
 * `version` is undefined when there is none (`@cordon/codex`, `codex`, `codex@`).
 */
export function splitPluginVersion(name: string): { readonly name: string; readonly version?: string } {
  const at = name.lastIndexOf('@');
  if (at <= 0 || at === name.length - 1) return { name };
  return { name: name.slice(0, at), version: name.slice(at + 1) };
}

/**
 * The plugin a `cordon plugins` argument names: a first-party short name (`codex`, `charts`,
 * `claude`) is the package the host's `oclif.aliases` map it to (`@cordon/codex`), as oclif's
 * installer and inspector read it, with a version or tag kept (`codex@0.1.0` is
 * `@cordon/codex@0.1.0`: oclif looks only the whole word up in the aliases, and would otherwise
 * install the unrelated npm package `codex`); anything else (a package name, a path, a URL, a
 * name the aliases block with `null`) is returned as given. Every `plugins` subcommand that takes
 * a plugin name (install, inspect, uninstall and its aliases) resolves its arguments through this
 * one function, so a name one of them accepts the others accept too.
 */
export function pluginPackageName(name: string, config: Interfaces.Config): string {
  const aliases = (config.pjson.oclif as { aliases?: Record<string, string | null> }).aliases ?? {};
  if (Object.hasOwn(aliases, name)) return aliases[name] ?? name;
  const { name: base, version } = splitPluginVersion(name);
  const full = version !== undefined && Object.hasOwn(aliases, base) ? aliases[base] : undefined;
  return full ? `${full}@${version}` : name;
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
