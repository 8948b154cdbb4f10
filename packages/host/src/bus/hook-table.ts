import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import type { HookTable } from '@cordon/plugin-api';

/**
 * Creates the host's frozen hook table (DESIGN.md "The hook bus"; webpack's `Compiler.hooks`).
 * Argument names are what tapable prints in its own errors.
 */
export function createHookTable(): HookTable {
  return Object.freeze({
    beforeToolCall: new AsyncSeriesBailHook(['call']),
    afterToolCall: new AsyncSeriesWaterfallHook(['result']),
    audit: new AsyncSeriesHook(['context']),
    compact: new AsyncSeriesWaterfallHook(['plan']),
    enforce: new AsyncSeriesBailHook(['request']),
  }) as HookTable;
}
