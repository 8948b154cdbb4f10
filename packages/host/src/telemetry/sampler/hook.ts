import type { Logger } from '@cordon/plugin-api';
import type { Marker } from '../markers.js';
import { sessionDir } from '../session-dir.js';
import { ensureSampler, stopSampler } from './ensure.js';

/**
 * The sampler's part of one hook invocation, run right after its marker is appended (MARKERS.md
 * "For the sampler"): `session_start` and `tool_start` make sure the session's sampler runs on the
 * marker's `agent_pid` (tool starts too, so agents without a session-start hook are sampled),
 * `session_end` asks it to stop. A turn end (`Stop`) does nothing. Without an `agent_pid` nothing
 * is started: sampling the hook's short-lived parent shell would stop at once and restart on every
 * call. Never throws and never waits for the sampler; failures are logged.
 */
export function samplerAfterMarker(dataDir: string, marker: Pick<Marker, 'event' | 'session_id' | 'agent_pid'> & Partial<Pick<Marker, 'ts'>>, log: Logger, env: NodeJS.ProcessEnv = process.env): void {
  try {
    if (marker.event === 'session_end') {
      stopSampler(sessionDir(dataDir, marker.session_id));
      return;
    }
    if (marker.event !== 'session_start' && marker.event !== 'tool_start') return;
    if (marker.agent_pid === undefined) {
      log.debug('no agent pid: session not sampled', { session_id: marker.session_id });
      return;
    }
    const result = ensureSampler({ dir: sessionDir(dataDir, marker.session_id), rootPid: marker.agent_pid, env, dataDir, ...(marker.ts !== undefined ? { since: marker.ts } : {}) });
    if (result.started) log.debug('sampler started', { session_id: marker.session_id, pid: result.pid, generation: result.generation });
    else if (result.reason !== 'running') log.info('sampler not started', { session_id: marker.session_id, reason: result.reason });
  } catch (error) {
    log.error('sampler start/stop failed', { session_id: marker.session_id, event: marker.event, error: error instanceof Error ? error.message : String(error) });
  }
}
