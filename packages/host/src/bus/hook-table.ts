import type { HookTable } from '@cordon/plugin-api';
// The three hook classes only: tapable's index loads all of its thirteen modules, which the hook
// process (started on every tool call) would pay for on each run (the hot-path measurements in docs/hooks.md).
// Typed in tapable-lib.d.ts; static imports so the hook bundle inlines them.
import AsyncSeriesBailHook from 'tapable/lib/AsyncSeriesBailHook.js';
import AsyncSeriesHook from 'tapable/lib/AsyncSeriesHook.js';
import AsyncSeriesWaterfallHook from 'tapable/lib/AsyncSeriesWaterfallHook.js';

/**
 * Creates the host's frozen hook table (docs/ARCHITECTURE.md "The hook bus"; webpack's `Compiler.hooks`).
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
