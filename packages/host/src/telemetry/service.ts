import type { TelemetryMarkerInput, TelemetryService } from '@cordon/plugin-api';
import { appendMarker, MARKER_SCHEMA_VERSION, type Marker } from './markers.js';
import { storedCommand } from '../hot/summary.js';
import { ensureSampler, stopSampler } from './sampler/ensure.js';
import { awaitSamplerStop } from './sampler/state.js';
import { sessionDir, sessionNameProblem } from './session-dir.js';
import { epochMs } from '../util/clock.js';

/**
 * `api.services.telemetry` for plugins (plugin-api `services/telemetry.ts`): marker appends,
 * session directories and the session sampler, over the same functions the hot path uses, so a
 * recorder such as `cordon wrap` writes exactly what a hook would.
 */
export function createTelemetryService(dataDir: string, env: NodeJS.ProcessEnv = process.env): TelemetryService {
  return Object.freeze({
    sessionDir: (sessionId: string) => sessionDir(dataDir, sessionId),
    sessionNameProblem: (name: string) => sessionNameProblem(name),
    appendMarker(input: TelemetryMarkerInput): void {
      const { event, ...fields } = input;
      const marker: Marker = {
        v: MARKER_SCHEMA_VERSION,
        event,
        ts: Math.round(epochMs() * 1000) / 1000,
        ...fields,
        // As the hook stores it: secrets as `***`, cut to 2,000 characters.
        ...(input.command !== undefined ? { command: storedCommand(input.command) } : {}),
        hook_overhead_ms: 0,
        hook_pid: process.pid,
      };
      appendMarker(dataDir, marker);
    },
    startSampler({ sessionId, rootPid, idle = true, since }: { readonly sessionId: string; readonly rootPid: number; readonly idle?: boolean; readonly since?: number }) {
      return ensureSampler({ dir: sessionDir(dataDir, sessionId), rootPid, env, dataDir, ...(idle ? {} : { idleMs: Infinity }), ...(since !== undefined ? { since } : {}) });
    },
    stopSampler: (sessionId: string) => stopSampler(sessionDir(dataDir, sessionId)),
    awaitSamplerStop: (sessionId: string, timeoutMs: number) => awaitSamplerStop(sessionDir(dataDir, sessionId), timeoutMs),
  });
}
