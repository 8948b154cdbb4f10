import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HOST_ROOT } from '../util/host-root.js';
import { FIRST_PARTY_ENTRIES, firstPartyEntry, firstPartyPlugins } from './first-party.js';

/**
 * The command that adds first-party plugins (`names`: short names such as `codex`, `charts`) to
 * the cordon that is running, for messages that tell the user what to run. An installed cordon
 * gets `cordon plugins install codex charts` (short names resolve to `@cordon/…`). A cordon run
 * from a checkout of its repository (`packages/host` beside a `plugins/<name>` directory), where
 * the packages may not be on any registry the user's npm knows, gets the checkout's own way:
 * `cordon plugins link <checkout>/plugins/<name> --no-install` for one plugin, `cd <checkout> &&
 * npm run plugins:link` (it links them all) for several (README "Install").
 */
export function pluginInstallCommand(names: readonly string[], bin = 'cordon'): string {
  const checkout = join(HOST_ROOT, '..', '..');
  const local = names.length > 0 && names.every((name) => checkoutPluginDir(name) !== undefined);
  if (!local) return `${bin} plugins install ${names.join(' ')}`;
  if (names.length === 1) return `${bin} plugins link ${join(checkout, 'plugins', names[0]!)} --no-install`;
  return `cd ${checkout} && npm run plugins:link`;
}

/**
 * The directory of first-party plugin `name` (`codex`) in the checkout this cordon runs from
 * (`packages/host` beside `plugins/<name>` with a `package.json`), or undefined for an installed
 * cordon.
 */
export function checkoutPluginDir(name: string): string | undefined {
  const dir = join(HOST_ROOT, '..', '..', 'plugins', name);
  return existsSync(join(dir, 'package.json')) ? dir : undefined;
}

/**
 * What to do when no installed plugin registers `name` in the host registry `kind` (`dialects`,
 * `runners`, `samplers`…), for the `CORDON_REGISTRY_MISSING` refusal: when a first-party plugin
 * registers it (`codex`: @cordon/codex), that plugin and the command that adds it to this cordon
 * ({@link pluginInstallCommand}: from a checkout, the link of the checkout's plugin); for any
 * other name, the general install command and the first-party plugins that register into `kind`
 * (all of them for a registry none fills), with the checkout's link form for those when cordon
 * runs from a checkout.
 */
export function missingEntryHint(kind: string, name: string, bin = 'cordon'): string {
  const plugin = firstPartyEntry(kind, name);
  if (plugin !== undefined) return `it comes with the @cordon/${plugin} plugin: \`${pluginInstallCommand([plugin], bin)}\``;
  // Only the first-party plugins that register into this registry are worth naming (no runner
  // comes with charts or otlp); a registry no first-party plugin fills gets them all.
  const providers = [...new Set(Object.values(Object.hasOwn(FIRST_PARTY_ENTRIES, kind) ? FIRST_PARTY_ENTRIES[kind]! : {}))].sort();
  const firstParty = providers.length ? providers : firstPartyPlugins();
  const checkout = firstParty.some((short) => checkoutPluginDir(short) !== undefined);
  const link = checkout ? `; this cordon runs from a checkout, which links them: \`${bin} plugins link ${join(HOST_ROOT, '..', '..', 'plugins', '<name>')} --no-install\`` : '';
  return `install the plugin that provides it (\`${bin} plugins install <name>\`; first-party${providers.length ? ` ones that do` : ''}: ${firstParty.join(', ')}${link})`;
}
