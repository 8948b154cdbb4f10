// tapable ships one CommonJS module per hook class (`module.exports = <class>`) but types only
// its index; these declarations give the per-class modules the index's types.
declare module 'tapable/lib/AsyncSeriesBailHook.js' {
  import type { AsyncSeriesBailHook } from 'tapable';
  const hook: typeof AsyncSeriesBailHook;
  export default hook;
}
declare module 'tapable/lib/AsyncSeriesHook.js' {
  import type { AsyncSeriesHook } from 'tapable';
  const hook: typeof AsyncSeriesHook;
  export default hook;
}
declare module 'tapable/lib/AsyncSeriesWaterfallHook.js' {
  import type { AsyncSeriesWaterfallHook } from 'tapable';
  const hook: typeof AsyncSeriesWaterfallHook;
  export default hook;
}
