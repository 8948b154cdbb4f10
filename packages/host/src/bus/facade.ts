import { STAGE, type HookFacades, type HookName, type HookTable } from '@cordon/plugin-api';
import { CordonError, ERROR_CODES, wrapPluginError } from '../errors/index.js';
import { wrapTap, type TapType } from './wrap-tap.js';

const STAGES = new Set<number>(Object.values(STAGE));

type TapOptions = string | { name: string; stage?: number; before?: string | string[]; [key: string]: unknown };

/** Normalises tap options, stamps the owning plugin, and refuses stages that are not {@link STAGE} values. */
function tapOptions(plugin: string, hook: HookName, options: TapOptions): Record<string, unknown> {
  const object = typeof options === 'string' ? { name: options } : { ...options };
  if (typeof object.name !== 'string' || object.name === '') {
    throw new CordonError(ERROR_CODES.PLUGIN_INVALID, `plugin "${plugin}" tapped "${hook}" without a tap name`, { details: { plugin, hook } });
  }
  if (object.stage !== undefined && !STAGES.has(object.stage)) {
    throw new CordonError(ERROR_CODES.PLUGIN_INVALID, `plugin "${plugin}" tapped "${hook}" at stage ${String(object.stage)}; use a STAGE constant (${Object.keys(STAGE).join(', ')})`, {
      details: { plugin, hook, stage: object.stage },
    });
  }
  return { ...object, plugin };
}

/**
 * Builds the tap-only facades handed to one plugin. Every function the plugin taps is wrapped
 * so that anything it throws reaches the caller as a `CordonPluginError` naming this plugin and
 * the hook; `call`, `promise`, `callAsync`, `intercept` and `withOptions` are not exposed.
 * Once `withdrawn()` is true (the plugin's `apply` failed) a new tap is ignored.
 */

/**
 * Removes every tap `plugin` made from every hook of `hooks` (a plugin whose `apply` threw
 * contributes nothing). Tapable compiles a hook's call function from its `taps` on
 * the next call; `_resetCompilation` drops the compiled one, as tapable's own `tap` does.
 */
export function removeTaps(hooks: HookTable, plugin: string): void {
  for (const hook of Object.values(hooks) as unknown as Array<{ taps: Array<{ plugin?: string }>; _resetCompilation(): void }>) {
    const kept = hook.taps.filter((t) => t.plugin !== plugin);
    if (kept.length === hook.taps.length) continue;
    hook.taps = kept;
    hook._resetCompilation();
  }
}
export function createFacades(hooks: HookTable, plugin: string, withdrawn: () => boolean = () => false): HookFacades {
  const facade = (hook: HookName) => {
    const target = hooks[hook] as unknown as Record<'tap' | 'tapAsync' | 'tapPromise', (o: unknown, f: unknown) => void>;
    const via = (method: 'tap' | 'tapAsync' | 'tapPromise', type: TapType) => (options: TapOptions, fn: (...args: any[]) => any) => {
      // A plugin whose apply failed contributes nothing, also through taps it makes later.
      if (withdrawn()) return;
      target[method](tapOptions(plugin, hook, options), wrapTap(type, fn, { mapError: (e) => wrapPluginError(plugin, hook, e) }));
    };
    return Object.freeze({
      name: hook,
      get taps() {
        return (hooks[hook] as unknown as { taps: unknown[] }).taps;
      },
      isUsed: () => (hooks[hook] as unknown as { isUsed(): boolean }).isUsed(),
      tap: via('tap', 'sync'),
      tapAsync: via('tapAsync', 'async'),
      tapPromise: via('tapPromise', 'promise'),
    });
  };
  return Object.freeze({
    beforeToolCall: facade('beforeToolCall'),
    afterToolCall: facade('afterToolCall'),
    audit: facade('audit'),
    compact: facade('compact'),
    enforce: facade('enforce'),
  }) as unknown as HookFacades;
}
