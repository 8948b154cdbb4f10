import { MARKERS_FILE } from '../markers.js';

/**
 * Files the sampler reads and writes in a session directory, beside the markers
 * (uncoalesced/cordon).
 */
export const SAMPLER_FILES = Object.freeze({
  /** One sample per tick, JSON lines, appended by the sampler. */
  samples: 'samples.jsonl',
  /** Sampler lifecycle events (`start`, `stop` with reason and tick statistics), JSON lines. */
  events: 'sampler.jsonl',
  /** Empty sentinel: the sampler exits at its next tick when this exists (session end, `wrap`). */
  stop: 'STOP',
  /** Written by a sampler that found no implementation for this platform; hooks then stop trying. */
  unsupported: 'sampler.unsupported',
  /** The hook markers; their modification time is the session's last activity (idle timeout). */
  markers: MARKERS_FILE,
});
