import type { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import type { AuditContext } from './events/audit.js';
import type { CompactionPlan } from './events/compact.js';
import type { GuardRequest, GuardResult } from './events/enforce.js';
import type { ToolCall, ToolDecision, ToolResult } from './events/tool-call.js';

/**
 * The host's hook table (docs/ARCHITECTURE.md "The hook bus"). The host owns the callable hooks;
 * plugins only ever see {@link HookFacades}.
 */
export interface HookTable {
  /** A canonical tool call is about to run; the first decision (deny or rewritten input) wins. */
  readonly beforeToolCall: AsyncSeriesBailHook<[ToolCall], ToolDecision | undefined>;
  /** A tool call finished (ok or failed); taps may return an annotated result. */
  readonly afterToolCall: AsyncSeriesWaterfallHook<[ToolResult]>;
  /** An envelope check gathers evidence; taps may push violations. */
  readonly audit: AsyncSeriesHook<[AuditContext]>;
  /** A compaction is about to be stored; taps may return an amended plan or throw to refuse it. */
  readonly compact: AsyncSeriesWaterfallHook<[CompactionPlan]>;
  /** Run one command under limits; the first backend able to enforce answers. */
  readonly enforce: AsyncSeriesBailHook<[GuardRequest], GuardResult | undefined>;
}

/** Names of the hooks in {@link HookTable}. */
export type HookName = keyof HookTable;

/** A hook with everything that fires or intercepts it removed: tap, tapAsync and tapPromise remain. */
export type TapOnly<H> = Omit<H, 'call' | 'callAsync' | 'promise' | 'intercept' | 'withOptions'>;

/** What plugins get: tap-only views of every hook. */
export type HookFacades = { readonly [K in HookName]: TapOnly<HookTable[K]> };
