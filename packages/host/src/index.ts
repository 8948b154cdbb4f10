export { CordonHost, type CollectedPlugin } from './bus/host.js';
export { createHookTable } from './bus/hook-table.js';
export { Registry, type Registered } from './bus/registry.js';
export { loadHost, loadHostDirect, HOST_ROOT } from './bus/load-host.js';
export { ERROR_CODES, CordonError, CordonPluginError, wrapPluginError, type ErrorCode } from './errors/index.js';
export { resolvePaths } from './util/paths.js';
export * from './ledger/index.js';
