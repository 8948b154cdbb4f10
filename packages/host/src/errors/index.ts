export { ERROR_CODES, type ErrorCode } from './catalogue.js';
export { CordonError, CordonPluginError, wrapPluginError } from './cordon-error.js';
