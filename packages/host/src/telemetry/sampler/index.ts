export { ensureSampler, stopSampler, samplerEntry, type EnsureSamplerOptions, type EnsureSamplerResult } from './ensure.js';
export { samplerAfterMarker } from './hook.js';
export { samplerSettings, DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS, DEFAULT_IDLE_MS, type SamplerSettings } from './config.js';
export { linuxProcSamplerEntry, pickSampler, registerBuiltinSamplers } from './builtin.js';
export { SAMPLER_FILES } from './files.js';
export { toSample, formatSample, type Sample } from './sample.js';
export { runSamplerLoop, type StopReason, type TickStats } from './loop.js';
export { acquireSamplerLock, highestGeneration, lockPath, readLockOwner, recordLockOwner, type LockOwner, type LockResult } from './lock.js';
export { identify, isAlive, type ProcessIdentity } from './identity.js';
