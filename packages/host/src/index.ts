export { CordonHost, type CollectedPlugin } from './bus/host.js';
export { createHookTable } from './bus/hook-table.js';
export { Registry, type Registered } from './bus/registry.js';
export { loadHost, loadHostDirect, HOST_ROOT } from './bus/load-host.js';
export { ERROR_CODES, CordonError, CordonPluginError, wrapPluginError, type ErrorCode } from './errors/index.js';
export { resolvePaths } from './util/paths.js';
export * from './ledger/index.js';
export * as envelope from './envelope/index.js';
export * as attempts from './envelope/attempt/index.js';
export {
  arm,
  check,
  checkLocked,
  checkRange,
  status,
  reset,
  auditEnvelope,
  acquireLock,
  withLock,
  beginAttempt,
  finishAttempt,
  attemptRefusal,
  loadEnvelope,
  saveState,
  saveAuditAndState,
  runVerifiers,
  runManaged,
  resolveSettings,
  discoverRepo,
  type AuditRecord,
  type EnvelopeState,
  type EnvelopeConfig,
  type Envelope,
  type LockHandle,
  type Phase,
  type VerifierResult,
} from './envelope/index.js';
export * as sampler from './telemetry/sampler/index.js';
export { reduce, reduceSession, type ReduceOptions, type ReduceResult, type ReducedSession, type SessionSummary, type ToolCallRecord } from './telemetry/reduce/index.js';
