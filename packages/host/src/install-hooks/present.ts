import type { InstallPlan } from '@cordon/plugin-api';

/**
 * True when an uninstall plan found cordon entries to remove (`ConfigChange.cordonRemoved`): the
 * agent's config at the plan's scope holds cordon's hooks. What doctor, `arm --live` and
 * install-hooks' two-scope warning mean by "installed".
 */
export function holdsCordonHooks(uninstall: InstallPlan): boolean {
  return uninstall.changes.some((c) => (c.cordonRemoved ?? 0) > 0);
}
