import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HOST_ROOT } from '../util/host-root.js';

/**
 * The command that adds first-party plugins (`names`: short names such as `codex`, `charts`) to
 * the cordon that is running, for messages that tell the user what to run. An installed cordon
 * gets `cordon plugins install codex charts` (short names resolve to `@cordon/…`). A cordon run
 * from a checkout of its repository (`packages/host` beside a `plugins/<name>` directory), where
 * the packages may not be on any registry the user's npm knows, gets the checkout's own way:
 * `cordon plugins link <checkout>/plugins/<name> --no-install` for one plugin, `npm run
 * plugins:link` (in the checkout; it links them all) for several (README "Install").
 */
export function pluginInstallCommand(names: readonly string[], bin = 'cordon'): string {
  const checkout = join(HOST_ROOT, '..', '..');
  const local = names.length > 0 && names.every((name) => existsSync(join(checkout, 'plugins', name, 'package.json')));
  if (!local) return `${bin} plugins install ${names.join(' ')}`;
  if (names.length === 1) return `${bin} plugins link ${join(checkout, 'plugins', names[0]!)} --no-install`;
  return `npm run plugins:link (in ${checkout})`;
}
