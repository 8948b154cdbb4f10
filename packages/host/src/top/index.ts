// `cordon top`: a live view of the agent sessions running on this machine, read from the ends of
// the files the hook and the sampler write (docs/top.md).
export { agentAlive, processStartMs } from './agent-alive.js';
export { runLiveTop, REFRESH_MS } from './live.js';
export type { LiveTopOptions } from './live.js';
export { readMarkersView, MARKERS_TAIL_BYTES } from './markers-tail.js';
export { PeakTracker, readLatestSample, PEAK_WINDOW_BYTES } from './samples-tail.js';
export { readSamplerView } from './sampler-state.js';
export { renderTop } from './render.js';
export type { RenderOptions } from './render.js';
export { DEFAULT_LAST_CALLS, readTopSnapshot, TOP_SCHEMA_VERSION, TopReader } from './snapshot.js';
export type { TopCurrentCall, TopEndedCall, TopReaderOptions, TopSampler, TopSession, TopSnapshot, TopTreeNow } from './snapshot.js';
export { sortSessions, TOP_SORT_KEYS } from './sort.js';
export { TOP_MIN_WIDTH, topWidth } from './width.js';
export type { TopSortKey } from './sort.js';
