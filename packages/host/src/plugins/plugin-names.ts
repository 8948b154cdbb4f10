import type { Interfaces } from '@oclif/core';
import { CordonError, ERROR_CODES } from '../errors/index.js';

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

/**
 * The name in oclif's words for a plugin no installed plugin is, `<name><suffix>` (`' not
 * installed'` from `plugins inspect`, `' is not installed'` from `plugins uninstall`), else
 * `undefined`. oclif writes the name raw, so `a b` or an empty name reads as no name at all.
 */
export function notInstalledName(error: unknown, suffix: ' not installed' | ' is not installed'): string | undefined {
  if (!(error instanceof Error) || !error.message.endsWith(suffix)) return undefined;
  return error.message.slice(0, -suffix.length);
}

/**
 * The refusal for a plugin name no installed plugin has, the same from every `plugins`
 * subcommand: the name JSON-quoted as every refused value is (a blank, an escape in it shows),
 * and the command that lists what is installed. Exit 2 (`CORDON_BAD_INPUT`).
 */
export function notInstalledError(name: string, bin: string): CordonError {
  return new CordonError(ERROR_CODES.BAD_INPUT, `no installed plugin is called ${JSON.stringify(name)}; \`${bin} plugins\` lists them`, { details: { plugin: name } });
}
