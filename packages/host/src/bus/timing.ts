import type { HookName, HookTable, Logger } from '@cordon/plugin-api';
import { wrapTap, type TapType } from './wrap-tap.js';

/**
 * Installs the one timing interceptor on every hook (webpack's ProgressPlugin pattern): each tap
 * is wrapped as it registers, and each run logs `{hook, plugin, tap, ms, failed}` at debug level.
 * Plugins need not cooperate.
 */
export function installTiming(hooks: HookTable, log: Logger): void {
  for (const name of Object.keys(hooks) as HookName[]) {
    (hooks[name] as unknown as { intercept(i: object): void }).intercept({
      register(tap: { type: TapType; fn: (...args: any[]) => any; name: string; plugin?: string }) {
        const fn = wrapTap(tap.type, tap.fn, {
          settled: (ms, failed) => log.debug('tap', { hook: name, plugin: tap.plugin ?? '', tap: tap.name, ms: Math.round(ms * 1000) / 1000, failed }),
        });
        return { ...tap, fn };
      },
    });
  }
}
